import Futures

/// splay's `Future`, through its public API only, exactly as the player uses it.
public struct SplayContender: FutureContender {
  /// A pending future, the resolver that keeps it pending (a future whose resolver is released is cancelled).
  public typealias Pending = (future: Future<Int, Never>, resolver: Future<Int, Never>.Resolver)

  /// splay's futures need no context.
  public init() {}

  public func createObserveResolve(count: Int) -> Int {
    let tally = Tally()
    for index in 0..<count {
      let (future, resolver) = Future<Int, Never>.pending()
      future.whenSuccess { tally.add($0) }
      resolver.resolve(index)
    }
    return tally.total
  }

  public func mapChainOnResolved(length: Int) -> Int {
    var future = Future<Int, Never>.resolved(0)
    for _ in 0..<length {
      future = future.map { $0 &+ 1 }
    }
    let tally = Tally()
    future.whenSuccess { tally.add($0) }
    return tally.total
  }

  public func callbacksOnOne(count: Int) -> Int {
    let tally = Tally()
    let (future, resolver) = Future<Int, Never>.pending()
    for _ in 0..<count {
      future.whenSuccess { tally.add($0) }
    }
    resolver.resolve(1)
    return tally.total
  }

  public func prepareRace(count: Int, delivered: DeliveryCounter) -> (any RaceRound)? {
    var futures: [Future<Int, Never>] = []
    var resolvers: [Future<Int, Never>.Resolver] = []
    futures.reserveCapacity(count)
    resolvers.reserveCapacity(count)
    for _ in 0..<count {
      let (future, resolver) = Future<Int, Never>.pending()
      futures.append(future)
      resolvers.append(resolver)
    }
    return Round(futures: futures, resolvers: resolvers, delivered: delivered)
  }

  public func chainOnPending(length: Int) -> Int {
    let (root, resolver) = Future<Int, Never>.pending()
    var future = root
    for _ in 0..<length {
      future = future.map { $0 &+ 1 }
    }
    let tally = Tally()
    future.whenSuccess { tally.add($0) }
    resolver.resolve(0)
    return tally.total
  }

  public func makePending(observer: Tally) -> Pending {
    let (future, resolver) = Future<Int, Never>.pending()
    future.whenSuccess { observer.add($0) }
    return (future, resolver)
  }

  public func settle(_ pending: Pending) {
    pending.resolver.resolve(1)
  }

  private struct Round: RaceRound {
    let futures: [Future<Int, Never>]
    let resolvers: [Future<Int, Never>.Resolver]
    let delivered: DeliveryCounter

    func register(_ index: Int) {
      futures[index].whenSuccess { [delivered] _ in delivered.increment() }
    }

    func resolve(_ index: Int) {
      resolvers[index].resolve(index)
    }
  }
}
