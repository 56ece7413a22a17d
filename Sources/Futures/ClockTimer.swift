/// A one-shot timer on any clock, built on a task that sleeps: nothing blocks a thread while it waits.
///
/// The deadline is computed when the timer is created, not when the task first runs, so a timer started
/// just before a manual test clock advances still fires.
enum ClockTimer {
  /// Calls `fire` once `clock` reaches `duration` from now, unless the returned task is cancelled first.
  static func start<C: Clock>(
    after duration: Duration,
    on clock: C,
    _ fire: @escaping @Sendable () -> Void
  ) -> Task<Void, Never> where C.Duration == Duration {
    let deadline = clock.now.advanced(by: duration)
    return Task {
      do {
        try await clock.sleep(until: deadline, tolerance: nil)
      } catch {
        return
      }
      guard !Task.isCancelled else { return }
      fire()
    }
  }
}
