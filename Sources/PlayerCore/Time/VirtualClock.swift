import Futures
import Synchronization

/// A clock whose time moves only when told to: the simulated output and `splay run --output simulated` use it,
/// so a script's `wait 10` takes no wall time and tests are deterministic.
///
/// Both scheduled actions (``schedule(at:_:)``) and sleeping tasks (``sleep(until:tolerance:)``) wake in time
/// order during ``advance(to:)``; an action scheduled for the current instant runs on the next advance.
public final class VirtualClock: SchedulingClock, Sendable {
  /// A point on the virtual time line.
  public struct Instant: InstantProtocol, Sendable {
    /// Time since the clock was created.
    public var offset: Duration

    /// Creates an instant `offset` after the clock's origin.
    public init(offset: Duration) { self.offset = offset }

    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    /// The duration from this instant to `other`.
    public func duration(to other: Instant) -> Duration { other.offset - offset }
    /// Orders instants by time.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private enum Wakeup {
    case action(@Sendable () -> Void)
    case sleeper(CheckedContinuation<Void, any Error>)
  }

  private struct Entry {
    var deadline: Instant
    var sequence: UInt64
    var wakeup: Wakeup
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sequence: UInt64 = 0
    var entries: [UInt64: Entry] = [:]
  }

  private let state = Lock(State())

  /// Creates a clock at offset zero.
  public init() {}

  /// The current virtual time.
  public var now: Instant { state.withLock { $0.now } }

  /// Virtual time has no granularity.
  public var minimumResolution: Duration { .zero }

  /// The current time in nanoseconds since the origin, for timestamps in confirmations.
  public var nanoseconds: UInt64 {
    let offset = now.offset.components
    return UInt64(max(0, offset.seconds)) * 1_000_000_000 + UInt64(max(0, offset.attoseconds) / 1_000_000_000)
  }

  /// The earliest pending wake-up, if any.
  public var nextDeadline: Instant? {
    state.withLock { $0.entries.values.min { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }?.deadline }
  }

  /// Runs `action` when virtual time reaches `deadline`. Returns a token for ``cancel(_:)``.
  @discardableResult
  public func schedule(at deadline: Instant, _ action: @escaping @Sendable () -> Void) -> UInt64 {
    state.withLock { s in
      s.sequence += 1
      s.entries[s.sequence] = Entry(deadline: deadline, sequence: s.sequence, wakeup: .action(action))
      return s.sequence
    }
  }

  /// Forgets a scheduled action that has not run yet.
  public func cancel(_ token: UInt64) {
    _ = state.withLock { $0.entries.removeValue(forKey: token) }
  }

  /// ``cancel(_:)``, as a ``SchedulingClock``: the controller's deadlines on this clock are scheduled actions.
  public func cancelScheduled(_ token: UInt64) { cancel(token) }

  /// Suspends until virtual time reaches `deadline`; throws `CancellationError` when the task is cancelled.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let token = state.withLock { s -> UInt64 in
      s.sequence += 1
      return s.sequence
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let resumeNow = state.withLock { s -> Bool in
          if deadline <= s.now || Task.isCancelled { return true }
          s.entries[token] = Entry(deadline: deadline, sequence: token, wakeup: .sleeper(continuation))
          return false
        }
        if resumeNow {
          if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
        }
      }
    } onCancel: {
      let entry = state.withLock { $0.entries.removeValue(forKey: token) }
      if case .sleeper(let continuation) = entry?.wakeup { continuation.resume(throwing: CancellationError()) }
    }
  }

  /// Moves time forward by `duration`, waking everything due on the way, in time order.
  public func advance(by duration: Duration) {
    advance(to: now.advanced(by: duration))
  }

  /// Moves time forward to `target`, waking everything due on the way, each at its own instant. Actions that
  /// schedule more work before `target` see it run in the same advance.
  public func advance(to target: Instant) {
    while true {
      let due = state.withLock { s -> Entry? in
        guard
          let next = s.entries.values.min(by: { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }),
          next.deadline <= target
        else {
          if s.now < target { s.now = target }
          return nil
        }
        s.entries[next.sequence] = nil
        if s.now < next.deadline { s.now = next.deadline }
        return next
      }
      guard let due else { return }
      switch due.wakeup {
      case .action(let action): action()
      case .sleeper(let continuation): continuation.resume()
      }
    }
  }
}
