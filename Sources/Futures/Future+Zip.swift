import Synchronization

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
  public func zip<Other>(_ other: Future<Other, Failure>) -> Future<(Value, Other), Failure> {
    let derived = Future<(Value, Other), Failure>(upstream: DemandGroup([self, other]))
    let pair = Pair<Value, Other>()
    register(
      .always { outcome in
        switch outcome {
        case .success(let value):
          if let both = pair.set(first: value) { derived.settle(.success(both)) }
        case .failure(let error):
          derived.settle(.failure(error), withdrawing: true)
        case .cancelled:
          derived.settle(.cancelled, withdrawing: true)
        }
      },
      addingDemand: true
    )
    other.register(
      .always { outcome in
        switch outcome {
        case .success(let value):
          if let both = pair.set(second: value) { derived.settle(.success(both)) }
        case .failure(let error):
          derived.settle(.failure(error), withdrawing: true)
        case .cancelled:
          derived.settle(.cancelled, withdrawing: true)
        }
      },
      addingDemand: true
    )
    return derived
  }
}

/// The two halves of a `zip`, filled in from two threads.
private final class Pair<First: Sendable, Second: Sendable>: Sendable {
  private let halves = Mutex<(First?, Second?)>((nil, nil))

  /// Stores the first value; returns both once both are there.
  func set(first: First) -> (First, Second)? {
    halves.withLock { halves in
      halves.0 = first
      guard let second = halves.1 else { return nil }
      return (first, second)
    }
  }

  /// Stores the second value; returns both once both are there.
  func set(second: Second) -> (First, Second)? {
    halves.withLock { halves in
      halves.1 = second
      guard let first = halves.0 else { return nil }
      return (first, second)
    }
  }
}
