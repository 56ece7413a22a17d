extension Future {
  /// Runs `body` once this future settles, whatever the outcome, and returns a future that settles with the
  /// same outcome after `body` has run: `finally`-style cleanup that the rest of the chain waits for.
  ///
  /// Unlike ``whenComplete(on:_:)``, which only observes, the returned future is a step of the chain: cancelling it
  /// cancels this future (when nothing else waits on it), and `body` still runs, with the cleanup seeing the
  /// cancellation. `body` runs on `executor`.
  ///
  /// ```swift
  /// let file = sndfile.open(path)
  /// file.flatMap { handle in decoder.decode(handle) }
  ///   .finally { file.whenSuccess { handle in handle.close() } }
  ///   .whenSuccess { frames in output.play(frames) }
  /// ```
  @inlinable
  public func finally(on executor: ExecutionContext = .immediate, _ body: @escaping @Sendable () -> Void) -> Future {
    let derived = Future(upstream: self)
    register(
      .always { outcome in
        executor.execute {
          body()
          derived.settle(outcome)
        }
      },
      addingDemand: true
    )
    return derived
  }
}
