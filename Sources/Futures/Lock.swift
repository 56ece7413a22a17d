import Synchronization

/// A `Synchronization.Mutex` that ThreadSanitizer can see: the lock of this library, and of the player built
/// on it.
///
/// On Linux, `Mutex` hands a contended lock from one thread to the next inside the kernel (a
/// priority-inheriting futex), where ThreadSanitizer cannot observe it: it then reports every contended
/// critical section as a data race, even `Mutex<Int>.withLock { $0 += 1 }` run from four threads. An acquire
/// load at the start of each critical section and a release store at its end, on a word beside the lock,
/// give it the happens-before edge it needs. On x86 both are plain moves, and for a `Lock<Void>` the word
/// fills the padding after the 4-byte lock word, so this costs neither time nor memory.
///
/// It is used exactly like `Mutex`:
///
/// ```swift
/// let count = Lock(0)
/// count.withLock { $0 += 1 }
/// ```
@usableFromInline
package struct Lock<Value: ~Copyable>: ~Copyable {
  @usableFromInline
  let mutex: Mutex<Value>

  @usableFromInline
  let handOver = Atomic<UInt32>(0)

  /// A lock protecting `value`.
  @inlinable
  package init(_ value: consuming sending Value) {
    mutex = Mutex(value)
  }

  /// Runs `body` with the protected value, holding the lock, and returns what it returns (or throws what it
  /// throws).
  @inlinable
  package borrowing func withLock<Result: ~Copyable, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
      _ = handOver.load(ordering: .acquiring)
      defer { handOver.store(0, ordering: .releasing) }
      return try body(&value)
    }
  }
}

extension Lock: Sendable where Value: ~Copyable {}
