import Synchronization

/// A thread-safe counter that says which call brought it to zero.
final class Countdown: Sendable {
  private let remaining: Atomic<Int>

  init(_ count: Int) {
    remaining = Atomic(count)
  }

  /// Counts one down; returns `true` for exactly one call, the one that reaches zero.
  func countDown() -> Bool {
    remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
  }
}
