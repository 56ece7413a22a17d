/// The two halves of a `zip`, filled in from two threads.
@usableFromInline
final class ZipPair<First: Sendable, Second: Sendable>: Sendable {
  @usableFromInline
  let halves = Lock<(First?, Second?)>((nil, nil))

  @inlinable
  init() {}

  /// Stores the first value; returns both once both are there.
  @inlinable
  func set(first: First) -> (First, Second)? {
    halves.withLock { halves in
      halves.0 = first
      guard let second = halves.1 else { return nil }
      return (first, second)
    }
  }

  /// Stores the second value; returns both once both are there.
  @inlinable
  func set(second: Second) -> (First, Second)? {
    halves.withLock { halves in
      halves.1 = second
      guard let first = halves.0 else { return nil }
      return (first, second)
    }
  }
}
