/// A clock that can run an action at an instant by itself, with no task sleeping for it: a virtual or manual
/// clock that moves only when told to. Timed combinators (``Future/timeout(_:clock:error:)``,
/// ``Future/delay(_:clock:)``, ``Future/retry(attempts:initialTimeout:factor:clock:error:operation:)``) register
/// their deadline on such a clock at once, in the call, so that whoever moves the clock sees every deadline
/// already scheduled: with a sleeping task the deadline appeared only once that task had run.
public protocol SchedulingClock: Clock where Duration == Swift.Duration {
  /// Runs `action` once the clock reaches `deadline`; returns a token for ``cancelScheduled(_:)``.
  func schedule(at deadline: Instant, _ action: @escaping @Sendable () -> Void) -> UInt64
  /// Forgets an action that has not run yet.
  func cancelScheduled(_ token: UInt64)
}
