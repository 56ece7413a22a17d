extension Future {
  /// Returns a future of all the values, in input order, once every future has succeeded.
  ///
  /// It fails with the first error to arrive and is cancelled as soon as one input is cancelled; either way it
  /// stops waiting on the others, which are then cancelled unless something else waits on them. An empty input
  /// succeeds with `[]` right away. Collecting is linear in the number of futures.
  ///
  /// ```swift
  /// let durations = Future.all(playlist.map { track in probe(track) })
  /// ```
  @inlinable
  public static func all(_ futures: [Future]) -> Future<[Value], Failure> {
    guard !futures.isEmpty else { return .resolved([]) }
    let derived = Future<[Value], Failure>(upstream: DemandGroup(futures))
    let results = ResultSlots<Value>(count: futures.count)
    // Register on every input before any callback runs: an input that has already settled must not
    // settle the result before the others are registered (and counted as waited on).
    DrainStack.batch {
      for (index, future) in futures.enumerated() {
        future.register(
          .always { outcome in
            guard let value = derived.valueOrSettle(outcome, withdrawing: true) else { return }
            if let values = results.fill(index, with: value) { derived.settle(.success(values)) }
          },
          addingDemand: true
        )
      }
    }
    return derived
  }

  /// Returns a future of every outcome, in input order, once every future has settled; it never fails.
  ///
  /// Cancelling it stops waiting on the inputs (cancelling those nothing else waits on). An empty input
  /// succeeds with `[]` right away.
  ///
  /// ```swift
  /// Future.allSettled(sinks.map { sink in sink.drain() }).whenSuccess { outcomes in
  ///   log("\(outcomes.filter { $0.error != nil }.count) sinks failed to drain")
  /// }
  /// ```
  @inlinable
  public static func allSettled(_ futures: [Future]) -> Future<[Outcome<Value, Failure>], Never> {
    guard !futures.isEmpty else { return .resolved([]) }
    let derived = Future<[Outcome<Value, Failure>], Never>(upstream: DemandGroup(futures))
    let results = ResultSlots<Outcome<Value, Failure>>(count: futures.count)
    // Register on every input before any callback runs: an input that has already settled must not
    // settle the result before the others are registered (and counted as waited on).
    DrainStack.batch {
      for (index, future) in futures.enumerated() {
        future.register(
          .always { outcome in
            if let outcomes = results.fill(index, with: outcome) { derived.settle(.success(outcomes)) }
          },
          addingDemand: true
        )
      }
    }
    return derived
  }

  /// Combines the values of all the futures, in input order, into one result.
  ///
  /// It settles like ``all(_:)`` and then runs `combine` over the values, on the thread that resolved the
  /// last input.
  ///
  /// ```swift
  /// let total = Future.fold(playlist.map(probe), into: Duration.zero) { sum, length in sum + length }
  /// ```
  @inlinable
  public static func fold<Result: Sendable>(
    _ futures: [Future],
    into initial: Result,
    _ combine: @escaping @Sendable (Result, Value) -> Result
  ) -> Future<Result, Failure> {
    all(futures).map { values in values.reduce(initial, combine) }
  }

  /// Starts one future per element with `transform` (right away, in order) and returns a future of all their
  /// values, in input order, as ``all(_:)`` does. Linear in the number of elements.
  ///
  /// ```swift
  /// let tracks = Future.traverse(urls) { url in loadTrack(url) }
  /// ```
  @inlinable
  public static func traverse<Elements: Sequence>(
    _ elements: Elements,
    _ transform: (Elements.Element) -> Future
  ) -> Future<[Value], Failure> {
    all(elements.map(transform))
  }
}
