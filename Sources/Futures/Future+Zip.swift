extension Future {
  /// Returns a future of both values, once this future and `other` have both succeeded.
  ///
  /// It fails with the first error, and is cancelled if either input is cancelled; in both cases it stops
  /// waiting on the other input, which is then cancelled unless something else waits on it. Cancelling the
  /// zipped future does the same to both inputs.
  ///
  /// ```swift
  /// let ready = decoder.open(url).zip(output.connect())
  ///   .flatMap { stream, sink in sink.play(stream) }
  /// ```
  @inlinable
  public func zip<Other>(_ other: Future<Other, Failure>) -> Future<(Value, Other), Failure> {
    let derived = Future<(Value, Other), Failure>(upstream: DemandGroup([self, other]))
    let pair = ZipPair<Value, Other>()
    // Register on both before either callback runs (see `all`).
    DrainStack.batch {
      register(
        .always { outcome in
          guard let value = derived.valueOrSettle(outcome, withdrawing: true) else { return }
          if let both = pair.set(first: value) { derived.settle(.success(both)) }
        },
        addingDemand: true
      )
      other.register(
        .always { outcome in
          guard let value = derived.valueOrSettle(outcome, withdrawing: true) else { return }
          if let both = pair.set(second: value) { derived.settle(.success(both)) }
        },
        addingDemand: true
      )
    }
    return derived
  }
}
