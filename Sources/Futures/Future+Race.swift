extension Future {
  /// Returns a future that settles like the first of `futures` to succeed or fail.
  ///
  /// The race then stops waiting on the others, and each loser that nothing else waits on is cancelled, so
  /// abandoned work stops. An input that is cancelled drops out of the race; if every input is cancelled, or
  /// there is none, the race is cancelled. Cancelling the race cancels the inputs nothing else waits on.
  ///
  /// ```swift
  /// let stream = Future.race([mirrorA.fetch(url), mirrorB.fetch(url)])
  /// ```
  @inlinable
  public static func race(_ futures: [Future]) -> Future {
    guard !futures.isEmpty else { return .cancelled() }
    let derived = Future(upstream: DemandGroup(futures))
    let running = Countdown(futures.count)
    // Register on every input before any callback runs: an input that has already settled must not
    // settle the result before the others are registered (and counted as waited on).
    DrainStack.batch {
      for future in futures {
        future.register(
          .always { outcome in
            switch outcome {
            case .success, .failure:
              derived.settle(outcome, withdrawing: true)
            case .cancelled:
              if running.countDown() { derived.settle(.cancelled, withdrawing: true) }
            }
          },
          addingDemand: true
        )
      }
    }
    return derived
  }
}
