import Synchronization

/// A `Synchronization.Mutex` that ThreadSanitizer can see.
///
/// On Linux, `Mutex` hands a contended lock from one thread to the next inside the kernel (a
/// priority-inheriting futex), where ThreadSanitizer cannot observe it: it then reports every contended
/// critical section as a data race, even `Mutex<Int>.withLock { $0 += 1 }` run from four threads. An acquire
/// load at the start of each critical section and a release store at its end, on a word beside the lock,
/// give it the happens-before edge it needs. On x86 both are plain moves, and for a `Lock<Void>` the word
/// fills the padding after the 4-byte lock word, so this costs neither time nor memory.
@usableFromInline
struct Lock<Value: ~Copyable>: ~Copyable {
  @usableFromInline
  let mutex: Mutex<Value>

  @usableFromInline
  let handOver = Atomic<UInt32>(0)

  @inlinable
  init(_ value: consuming sending Value) {
    mutex = Mutex(value)
  }

  /// Runs `body` with the protected value, holding the lock.
  @inlinable
  borrowing func withLock<Result: ~Copyable>(_ body: (inout sending Value) -> sending Result) -> sending Result {
    mutex.withLock { value in
      _ = handOver.load(ordering: .acquiring)
      defer { handOver.store(0, ordering: .releasing) }
      return body(&value)
    }
  }
}

extension Lock: Sendable where Value: ~Copyable {}
