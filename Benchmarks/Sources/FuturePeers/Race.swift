import Foundation
import Synchronization

/// Counts the callbacks that ran in W4, where they run on either of two threads.
public final class DeliveryCounter: Sendable {
  private let count = Atomic<Int>(0)

  /// A counter at zero.
  public init() {}

  /// Records one callback; relaxed, because only the final count matters and it is read after both threads
  /// have been joined.
  public func increment() {
    count.wrappingAdd(1, ordering: .relaxed)
  }

  /// The number of callbacks recorded so far.
  public var value: Int {
    count.load(ordering: .acquiring)
  }
}

/// The futures of one W4 round: one thread calls ``register(_:)`` for every index in order while another
/// calls ``resolve(_:)`` for every index in order, so registrations and resolutions of the same future race.
public protocol RaceRound: Sendable {
  /// Adds one callback to future `index`; the callback increments the round's ``DeliveryCounter``.
  func register(_ index: Int)

  /// Resolves future `index`.
  func resolve(_ index: Int)
}

/// Runs `round` over `count` futures on two threads: the calling thread registers, a new thread resolves.
///
/// Both threads wait for each other at a start line before their loops, so that thread start-up does not let
/// one of them finish before the other begins and the two really contend for the same futures.
public func runRace(_ round: any RaceRound, count: Int) {
  let start = StartLine()
  let finished = DispatchSemaphore(value: 0)
  let resolver = Thread {
    start.arriveAndWait()
    for index in 0..<count {
      round.resolve(index)
    }
    finished.signal()
  }
  resolver.start()
  start.arriveAndWait()
  for index in 0..<count {
    round.register(index)
  }
  finished.wait()
}

/// A two-party spin barrier: spinning, not blocking, so that neither side is descheduled just before the race.
private final class StartLine: Sendable {
  private let arrived = Atomic<Int>(0)

  func arriveAndWait() {
    arrived.wrappingAdd(1, ordering: .acquiringAndReleasing)
    while arrived.load(ordering: .acquiring) < 2 {}
  }
}
