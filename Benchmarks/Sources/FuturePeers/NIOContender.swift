import NIOCore
import NIOEmbedded

/// swift-nio's `EventLoopFuture` on an `EmbeddedEventLoop`, which runs callbacks inline on the calling thread,
/// so what is measured is the future itself, not an event loop's scheduling.
///
/// W4 does not apply: an `EmbeddedEventLoop` may only be used from the thread that created it, and on a real
/// event loop every callback would hop to the loop's thread, which measures the loop, not the future.
public final class NIOContender: FutureContender {
  /// A pending promise (its future holds the callback).
  public typealias Pending = EventLoopPromise<Int>

  private let loop = EmbeddedEventLoop()

  /// Creates the embedded event loop the futures are bound to, on the calling thread.
  public init() {}

  public func createObserveResolve(count: Int) -> Int {
    let tally = Tally()
    for index in 0..<count {
      let promise = loop.makePromise(of: Int.self)
      promise.futureResult.whenSuccess { tally.add($0) }
      promise.succeed(index)
    }
    return tally.total
  }

  public func mapChainOnResolved(length: Int) -> Int {
    var future = loop.makeSucceededFuture(0)
    for _ in 0..<length {
      future = future.map { $0 &+ 1 }
    }
    let tally = Tally()
    future.whenSuccess { tally.add($0) }
    return tally.total
  }

  public func callbacksOnOne(count: Int) -> Int {
    let tally = Tally()
    let promise = loop.makePromise(of: Int.self)
    for _ in 0..<count {
      promise.futureResult.whenSuccess { tally.add($0) }
    }
    promise.succeed(1)
    return tally.total
  }

  public func prepareRace(count: Int, delivered: DeliveryCounter) -> (any RaceRound)? {
    nil
  }

  public func chainOnPending(length: Int) -> Int {
    let promise = loop.makePromise(of: Int.self)
    var future = promise.futureResult
    for _ in 0..<length {
      future = future.map { $0 &+ 1 }
    }
    let tally = Tally()
    future.whenSuccess { tally.add($0) }
    promise.succeed(0)
    return tally.total
  }

  public func makePending(observer: Tally) -> Pending {
    let promise = loop.makePromise(of: Int.self)
    promise.futureResult.whenSuccess { observer.add($0) }
    return promise
  }

  public func settle(_ pending: Pending) {
    pending.succeed(1)
  }
}
