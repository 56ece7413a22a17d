extension Future {
  /// Runs `operation` up to `attempts` times, giving each attempt a timeout that starts at `initialTimeout`
  /// and grows by `factor` after every attempt that times out.
  ///
  /// - An attempt that succeeds settles the result with its value.
  /// - An attempt that fails with its own error stops the retries: the result fails with that error.
  /// - An attempt that times out is cancelled (unless something else waits on it) and, if attempts remain,
  ///   the next one starts; after the last, the result fails with `error`.
  /// - A cancelled attempt stops the retries and cancels the result; cancelling the result cancels the
  ///   attempt in flight.
  ///
  /// The attempts are chained with collapsing `flatMapError`, so the returned future is one flat future however
  /// many attempts run. `operation` receives the attempt number, starting at 1.
  ///
  /// ```swift
  /// let connected = Future.retry(attempts: 4, initialTimeout: .milliseconds(250), factor: 2, error: .timedOut) {
  ///   attempt in pulse.connect()
  /// }
  /// ```
  public static func retry(
    attempts: Int,
    initialTimeout: Duration,
    factor: Double = 2,
    clock: some Clock<Duration> = ContinuousClock(),
    error: Failure,
    operation: @escaping @Sendable (_ attempt: Int) -> Future
  ) -> Future {
    precondition(attempts > 0, "retry needs at least one attempt")
    return attempt(
      1,
      of: attempts,
      timeout: initialTimeout,
      factor: factor,
      clock: clock,
      error: error,
      operation: operation
    )
  }

  private static func attempt<C: Clock>(
    _ number: Int,
    of attempts: Int,
    timeout: Duration,
    factor: Double,
    clock: C,
    error: Failure,
    operation: @escaping @Sendable (_ attempt: Int) -> Future
  ) -> Future where C.Duration == Duration {
    operation(number)
      .mapError(AttemptFailure.failed)
      .timeout(timeout, clock: clock, error: .timedOut)
      .flatMapError { failure -> Future in
        switch failure {
        case .failed(let failure):
          return .rejected(failure)
        case .timedOut where number < attempts:
          return attempt(
            number + 1,
            of: attempts,
            timeout: timeout * factor,
            factor: factor,
            clock: clock,
            error: error,
            operation: operation
          )
        case .timedOut:
          return .rejected(error)
        }
      }
  }

  /// Tells an attempt's own failure apart from its timeout, whatever `Failure` is.
  private enum AttemptFailure: Error {
    case failed(Failure)
    case timedOut
  }
}
