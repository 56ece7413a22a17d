extension Future {
  /// Returns a future that settles like this one, or fails with `error` if this one has not settled after
  /// `duration` on `clock`.
  ///
  /// When the time is up, the returned future fails and stops waiting on this one, which is therefore
  /// cancelled (its resolver's `onCancel` handlers run) unless something else still waits on it. No thread
  /// blocks while it waits, and any `Clock<Duration>` works, including a manual test clock. On the continuous
  /// clock (the default) the deadline joins those that one dispatch timer watches for the whole process, so
  /// a timeout that is met costs no thread a wake-up, and the failure is delivered on that timer's queue
  /// (outside the cooperative pool, so it comes even while the pool's threads are all blocked); on other
  /// clocks a task sleeps for it and the failure is delivered on a thread of the pool. Cancelling the
  /// returned future cancels the timer and, by the same rule, this future.
  ///
  /// ```swift
  /// output.seek(to: position)
  ///   .timeout(.seconds(2), error: .timedOut)
  ///   .whenFailure { error in log(error) }
  /// ```
  public func timeout(
    _ duration: Duration,
    clock: some Clock<Duration> = ContinuousClock(),
    error: Failure
  ) -> Future {
    if clock is ContinuousClock { return timeout(duration, error: error) }
    // Already settled: nothing to time, and no timer task to start.
    if let outcome { return Future(outcome: outcome) }
    let derived = Future(upstream: self)
    let timer = ClockTimer.start(after: duration, on: clock) {
      derived.settle(.failure(error), withdrawing: true)
    }
    derived.register(.always { _ in timer.cancel() })
    register(.always { outcome in derived.settle(outcome) }, addingDemand: true)
    return derived
  }

  /// ``timeout(_:clock:error:)`` on the continuous clock, its default, without a generic clock to open: the
  /// deadline goes straight to the one timer that watches them all. A caller that puts a deadline on every
  /// operation saves the existential and the generic timer each time (a third of sending a command to the
  /// player, profiled with cold caches).
  ///
  /// ```swift
  /// output.pause().timeout(.seconds(3), error: .timedOut)
  /// ```
  public func timeout(_ duration: Duration, error: Failure) -> Future {
    if let outcome { return Future(outcome: outcome) }
    let derived = Future(upstream: self)
    let deadline = ContinuousDeadlines.shared.schedule(at: .now.advanced(by: duration)) {
      derived.settle(.failure(error), withdrawing: true)
    }
    derived.register(.always { _ in ContinuousDeadlines.shared.cancel(deadline) })
    register(.always { outcome in derived.settle(outcome) }, addingDemand: true)
    return derived
  }

  /// Returns a future that settles with this future's value or error, `duration` on `clock` after this one
  /// does.
  ///
  /// Cancellation is not delayed: if this future is cancelled, so is the returned one, at once. Cancelling the
  /// returned future cancels the pending timer, or this future if it is still pending and nothing else waits
  /// on it.
  ///
  /// ```swift
  /// let debounced = search(text).delay(.milliseconds(150))
  /// ```
  public func delay(_ duration: Duration, clock: some Clock<Duration> = ContinuousClock()) -> Future {
    let derived = Future(upstream: self)
    register(
      .always { outcome in
        if outcome.isCancelled {
          derived.settle(.cancelled)
          return
        }
        let timer = ClockTimer.start(after: duration, on: clock) { derived.settle(outcome) }
        derived.onCancel { timer.cancel() }
      },
      addingDemand: true
    )
    return derived
  }
}

extension Future where Failure == Never {
  /// Returns a future that settles like this one, or is cancelled if this one has not settled after
  /// `duration` on `clock` (a future that cannot fail has no error to time out with).
  ///
  /// When the time is up the returned future is cancelled and stops waiting on this one, which is cancelled
  /// too unless something else waits on it. Use ``promoteError(to:)`` first to time out with an error.
  public func timeout(_ duration: Duration, clock: some Clock<Duration> = ContinuousClock()) -> Future {
    if let outcome { return Future(outcome: outcome) }
    let derived = Future(upstream: self)
    let timer = ClockTimer.start(after: duration, on: clock) {
      derived.settle(.cancelled, withdrawing: true)
    }
    derived.register(.always { _ in timer.cancel() })
    register(.always { outcome in derived.settle(outcome) }, addingDemand: true)
    return derived
  }
}
