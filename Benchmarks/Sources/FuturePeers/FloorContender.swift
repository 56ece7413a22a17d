/// The bare Mutex future of ``BareFuture``: the floor every row is compared with.
public struct FloorContender: FutureContender {
  /// A pending bare future keeps itself pending: it has no separate resolver.
  public typealias Pending = BareFuture<Int>

  /// The floor needs no context.
  public init() {}

  public func createObserveResolve(count: Int) -> Int {
    let tally = Tally()
    for index in 0..<count {
      let future = BareFuture<Int>()
      future.whenResolved { tally.add($0) }
      future.resolve(index)
    }
    return tally.total
  }

  public func mapChainOnResolved(length: Int) -> Int {
    var future = BareFuture(value: 0)
    for _ in 0..<length {
      future = future.map { $0 &+ 1 }
    }
    let tally = Tally()
    future.whenResolved { tally.add($0) }
    return tally.total
  }

  public func callbacksOnOne(count: Int) -> Int {
    let tally = Tally()
    let future = BareFuture<Int>()
    for _ in 0..<count {
      future.whenResolved { tally.add($0) }
    }
    future.resolve(1)
    return tally.total
  }

  public func prepareRace(count: Int, delivered: DeliveryCounter) -> (any RaceRound)? {
    Round(futures: (0..<count).map { _ in BareFuture<Int>() }, delivered: delivered)
  }

  public func chainOnPending(length: Int) -> Int {
    let root = BareFuture<Int>()
    var future = root
    for _ in 0..<length {
      future = future.map { $0 &+ 1 }
    }
    let tally = Tally()
    future.whenResolved { tally.add($0) }
    root.resolve(0)
    return tally.total
  }

  public func makePending(observer: Tally) -> Pending {
    let future = BareFuture<Int>()
    future.whenResolved { observer.add($0) }
    return future
  }

  public func settle(_ pending: Pending) {
    pending.resolve(1)
  }

  private struct Round: RaceRound {
    let futures: [BareFuture<Int>]
    let delivered: DeliveryCounter

    func register(_ index: Int) {
      futures[index].whenResolved { [delivered] _ in delivered.increment() }
    }

    func resolve(_ index: Int) {
      futures[index].resolve(index)
    }
  }
}
