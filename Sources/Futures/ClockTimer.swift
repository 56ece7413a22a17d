/// A one-shot timer on any clock. On the continuous clock (the default of every timed combinator) it is one
/// of the ``ContinuousDeadlines``, which a single dispatch timer watches for the whole process; on a
/// ``SchedulingClock`` it is an action that clock runs; on any other clock (a manual test clock) it is a task of
/// its own that sleeps on that clock. Nothing blocks a thread while it waits.
///
/// The deadline is computed when the timer is created, not when a task first runs, so a timer started just
/// before a manual test clock advances still fires.
struct ClockTimer: Sendable {
  private enum Backing {
    case deadline(UInt64)
    case task(Task<Void, Never>)
    case scheduled(@Sendable () -> Void)
  }

  private let backing: Backing

  /// Calls `fire` once `clock` reaches `duration` from now, unless the timer is cancelled first.
  static func start<C: Clock>(
    after duration: Duration,
    on clock: C,
    _ fire: @escaping @Sendable () -> Void
  ) -> ClockTimer where C.Duration == Duration {
    if let continuous = clock as? ContinuousClock {
      let deadline = continuous.now.advanced(by: duration)
      return ClockTimer(backing: .deadline(ContinuousDeadlines.shared.schedule(at: deadline, fire)))
    }
    if let scheduling = clock as? any SchedulingClock {
      return scheduled(on: scheduling, after: duration, fire)
    }
    let deadline = clock.now.advanced(by: duration)
    let task = Task {
      do {
        try await clock.sleep(until: deadline, tolerance: nil)
      } catch {
        return
      }
      guard !Task.isCancelled else { return }
      fire()
    }
    return ClockTimer(backing: .task(task))
  }

  private static func scheduled<S: SchedulingClock>(
    on clock: S, after duration: Duration, _ fire: @escaping @Sendable () -> Void
  ) -> ClockTimer {
    let token = clock.schedule(at: clock.now.advanced(by: duration), fire)
    return ClockTimer(backing: .scheduled({ clock.cancelScheduled(token) }))
  }

  /// Stops the timer: `fire` does not run unless it is running already.
  func cancel() {
    switch backing {
    case .deadline(let id): ContinuousDeadlines.shared.cancel(id)
    case .task(let task): task.cancel()
    case .scheduled(let cancel): cancel()
    }
  }
}
