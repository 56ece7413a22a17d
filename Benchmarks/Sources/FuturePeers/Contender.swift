/// One future implementation measured by the benchmarks: splay's `Future`, the bare Mutex floor, or a peer.
///
/// The workloads are synchronous so that every contender runs on the benchmark's own thread; the
/// continuation peer, whose futures are tasks, waits for its tasks inside (see ``ContinuationContender``).
///
/// Each workload runs its whole loop inside the contender's own code, so the generic call through this
/// protocol happens once per batch, not once per operation, and every contender pays the same harness cost.
/// Every workload returns a checksum of the values its callbacks saw; the harness compares it with the
/// expected value, so a contender cannot win by losing callbacks and the optimizer cannot drop the work.
/// Each workload also releases everything it made before it returns, so teardown is part of the cost.
public protocol FutureContender {
  /// What ``makePending(observer:)`` returns: everything that keeps one pending future and its callback alive.
  associatedtype Pending

  /// Creates the contender's context (an event loop, for NIO), outside any measured region.
  init()

  /// W1: `count` times, create a pending future, add one callback, resolve it with the loop index.
  ///
  /// - Returns: the sum of the values the callbacks saw, `count * (count - 1) / 2`.
  func createObserveResolve(count: Int) -> Int

  /// W2: a chain of `length` `map { $0 + 1 }` steps on a future that has already succeeded with 0.
  ///
  /// - Returns: the value at the end of the chain, `length`.
  func mapChainOnResolved(length: Int) -> Int

  /// W3: `count` callbacks on one pending future, then the future resolved with 1.
  ///
  /// - Returns: the sum the callbacks saw, `count`.
  func callbacksOnOne(count: Int) -> Int

  /// W4: `count` pending futures, ready for one thread to register on and another to resolve, or `nil`
  /// where the contender has no such use (see the conforming type's documentation).
  func prepareRace(count: Int, delivered: DeliveryCounter) -> (any RaceRound)?

  /// W5: a chain of `length` `map { $0 + 1 }` steps built on a pending future, then the root resolved with 0.
  ///
  /// - Returns: the value at the end of the chain, `length`.
  func chainOnPending(length: Int) -> Int

  /// Memory: one pending future with one callback that adds the value to `observer`; the harness keeps the
  /// result until ``settle(_:)``.
  ///
  /// The callback captures one object, the commonest shape of a callback (`self`, usually), which Swift stores
  /// without a box, so the bytes counted are the future's own.
  func makePending(observer: Tally) -> Pending

  /// Waits until the future made by ``makePending(observer:)`` has done all its allocations.
  ///
  /// Only the continuation peer allocates after `makePending` returns, on the task it starts.
  func waitUntilParked(_ pending: Pending)

  /// Resolves a future made by ``makePending(observer:)`` with 1, so that its callback runs and both can be
  /// released.
  func settle(_ pending: Pending)
}

extension FutureContender {
  /// Futures that allocate everything before `makePending` returns have nothing to wait for.
  public func waitUntilParked(_ pending: Pending) {}
}

/// The contenders, by the names the benchmarks, the probe and the driver use.
public enum ContenderName: String, CaseIterable, Sendable {
  case splay
  case floor
  case openCombine = "opencombine"
  case nio
  case continuation

  /// The contender as a type, so that a benchmark can be registered once for each of them.
  public var type: any FutureContender.Type {
    switch self {
    case .splay: SplayContender.self
    case .floor: FloorContender.self
    case .openCombine: OpenCombineContender.self
    case .nio: NIOContender.self
    case .continuation: ContinuationContender.self
    }
  }
}

/// Collects what the callbacks of one workload saw.
///
/// The single-threaded workloads (W1–W3, W5) add to it from one thread only, so it needs no lock; an atomic
/// here would charge every contender for a synchronization that its own callbacks do not need.
public final class Tally: @unchecked Sendable {
  // Safety: W1–W3 and W5 add from one thread; the memory row's continuation tasks add one at a time, each
  // resumed only after the previous one has finished; W4, whose callbacks run on two threads at once, uses
  // `DeliveryCounter` instead.
  /// The sum of the values added so far.
  public var total = 0

  /// An empty tally.
  public init() {}

  /// Adds `value`, wrapping on overflow.
  @inline(__always)
  public func add(_ value: Int) {
    total &+= value
  }
}
