import Synchronization

/// A thread-safe counter that says which call brought it to zero.
@usableFromInline
final class Countdown: Sendable {
  @usableFromInline
  let remaining: Atomic<Int>

  @inlinable
  init(_ count: Int) {
    remaining = Atomic(count)
  }

  /// Counts one down; returns `true` for exactly one call, the one that reaches zero.
  @inlinable
  func countDown() -> Bool {
    remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
  }
}
