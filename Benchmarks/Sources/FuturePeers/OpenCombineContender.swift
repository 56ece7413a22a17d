import OpenCombine

/// OpenCombine's `Future`, observed with `sink`.
///
/// A W2/W5 step is a new `Future` fed by a `sink` on the previous one, which is how Combine code turns a
/// transformed value back into a future that keeps its value for every subscriber, as a splay `map` does.
/// Chaining Combine's `map` operator instead is not an option at these lengths: its subscribers nest by value,
/// one generic level per stage, and subscribing to a chain of 1,000 type-erased `map` stages already overflows
/// the main thread's 8 MiB stack (measured with OpenCombine 0.14.0 while writing this benchmark).
public struct OpenCombineContender: FutureContender {
  /// The promise keeps the future pending and the cancellable keeps the sink subscribed.
  public typealias Pending = (promise: Future<Int, Never>.Promise, future: Future<Int, Never>, sink: AnyCancellable)

  /// OpenCombine needs no context.
  public init() {}

  public func createObserveResolve(count: Int) -> Int {
    let tally = Tally()
    for index in 0..<count {
      let (future, promise) = Self.pending()
      let subscription = future.sink { tally.add($0) }
      promise(.success(index))
      withExtendedLifetime(subscription) {}
    }
    return tally.total
  }

  public func mapChainOnResolved(length: Int) -> Int {
    var subscriptions: [AnyCancellable] = []
    var future = Future<Int, Never> { $0(.success(0)) }
    for _ in 0..<length {
      future = Self.step(after: future, keepingSubscriptionIn: &subscriptions)
    }
    let tally = Tally()
    let subscription = future.sink { tally.add($0) }
    withExtendedLifetime((subscription, subscriptions)) {}
    return tally.total
  }

  public func callbacksOnOne(count: Int) -> Int {
    let tally = Tally()
    let (future, promise) = Self.pending()
    var subscriptions: [AnyCancellable] = []
    subscriptions.reserveCapacity(count)
    for _ in 0..<count {
      subscriptions.append(future.sink { tally.add($0) })
    }
    promise(.success(1))
    withExtendedLifetime(subscriptions) {}
    return tally.total
  }

  public func prepareRace(count: Int, delivered: DeliveryCounter) -> (any RaceRound)? {
    Round(count: count, delivered: delivered)
  }

  public func chainOnPending(length: Int) -> Int {
    var subscriptions: [AnyCancellable] = []
    let (root, promise) = Self.pending()
    var future = root
    for _ in 0..<length {
      future = Self.step(after: future, keepingSubscriptionIn: &subscriptions)
    }
    let tally = Tally()
    let subscription = future.sink { tally.add($0) }
    promise(.success(0))
    withExtendedLifetime((subscription, subscriptions)) {}
    return tally.total
  }

  public func makePending(observer: Tally) -> Pending {
    let (future, promise) = Self.pending()
    return (promise, future, future.sink { observer.add($0) })
  }

  public func settle(_ pending: Pending) {
    pending.promise(.success(1))
  }

  /// A pending future and the promise that settles it, the way Combine code gets hold of both.
  static func pending() -> (Future<Int, Never>, Future<Int, Never>.Promise) {
    var promise: Future<Int, Never>.Promise?
    let future = Future<Int, Never> { promise = $0 }
    return (future, promise!)
  }

  /// One `map { $0 + 1 }` step: a future fed by a sink on `previous`; the sink's cancellable must be kept, or
  /// the subscription ends.
  static func step(
    after previous: Future<Int, Never>,
    keepingSubscriptionIn subscriptions: inout [AnyCancellable]
  ) -> Future<Int, Never> {
    var subscription: AnyCancellable?
    let next = Future<Int, Never> { promise in
      subscription = previous.sink { promise(.success($0 &+ 1)) }
    }
    subscriptions.append(subscription!)
    return next
  }

  /// OpenCombine's `Future` locks its state, but is not annotated `Sendable`.
  private final class Round: RaceRound, @unchecked Sendable {
    // Safety: `futures` and `subscriptions` are only touched by the registering thread and `promises` only by
    // the resolving one; each future synchronizes its own state with its lock.
    private let futures: [Future<Int, Never>]
    private let promises: [Future<Int, Never>.Promise]
    private var subscriptions: [AnyCancellable] = []
    private let delivered: DeliveryCounter

    init(count: Int, delivered: DeliveryCounter) {
      let pairs = (0..<count).map { _ in OpenCombineContender.pending() }
      futures = pairs.map(\.0)
      promises = pairs.map(\.1)
      subscriptions.reserveCapacity(count)
      self.delivered = delivered
    }

    func register(_ index: Int) {
      subscriptions.append(futures[index].sink { [delivered] _ in delivered.increment() })
    }

    func resolve(_ index: Int) {
      promises[index](.success(index))
    }
  }
}
