#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A future whose callbacks are waiting to run on this thread.
protocol Drainable: AnyObject {
  /// Runs the next callback and returns `true`, or marks the future settled and returns `false` when none
  /// is left.
  func drainNext() -> Bool
}

/// The per-thread work list that runs callbacks iteratively, in the manner of swift-nio's
/// `CallbackList._run()`.
///
/// Settling a future from inside a callback must not run the new future's callbacks right there: a
/// 1,000,000-step `map` chain would then recurse 1,000,000 frames deep. Instead, the first library call on a
/// thread that has callbacks to run becomes that thread's *drainer*; every future settled (or observed
/// after settling) while it drains is pushed here, and the drainer runs them in a flat loop.
///
/// The order is depth-first, which is the order plain recursion would give: after each callback returns,
/// the futures it settled are drained (in the order it settled them) before the next callback of the same
/// future runs. So a callback registered from inside a callback runs right after that callback returns,
/// and everything runs before the outermost library call returns.
///
/// The list lives in thread-local storage (POSIX keys: the standard library has no thread-local API and
/// a task-local would follow child tasks onto other threads).
final class DrainStack {
  /// Whether a drainer is running on this thread.
  private(set) var isDraining = false
  /// Futures with callbacks to run; the last one runs next.
  private var entries: [any Drainable] = []

  /// This thread's drain stack, created on first use.
  static var current: DrainStack {
    if let existing = pthread_getspecific(drainStackKey) {
      return Unmanaged<DrainStack>.fromOpaque(existing).takeUnretainedValue()
    }
    let stack = DrainStack()
    pthread_setspecific(drainStackKey, Unmanaged.passRetained(stack).toOpaque())
    return stack
  }

  /// Whether a drainer is running on this thread (without creating a stack for threads that never drain).
  static var isDrainingHere: Bool {
    guard let existing = pthread_getspecific(drainStackKey) else { return false }
    return Unmanaged<DrainStack>.fromOpaque(existing).takeUnretainedValue().isDraining
  }

  /// Queues a future whose callbacks the running drainer must run.
  func push(_ future: any Drainable) {
    assert(isDraining, "only a drainer may take more work")
    entries.append(future)
  }

  /// Becomes this thread's drainer: runs `first`, then every callback of `future` and of everything they
  /// settle, and returns when there is nothing left.
  func drain<Value, Failure>(
    _ future: Future<Value, Failure>,
    first: FutureCallback<Value, Failure>,
    outcome: Outcome<Value, Failure>
  ) {
    assert(!isDraining, "a drainer is already running on this thread")
    isDraining = true
    first(outcome)
    runEntries(pushedFrom: 0)
    while future.drainNext() {
      runEntries(pushedFrom: 0)
    }
    isDraining = false
    if entries.capacity > 4096 {
      // A very long chain grew the list; give the memory back rather than keep it for the thread's life.
      entries = []
    }
  }

  /// Runs every queued future to completion, depth first.
  private func runEntries(pushedFrom start: Int) {
    putInSettlingOrder(from: start)
    while let top = entries.last {
      let start = entries.count
      if top.drainNext() {
        putInSettlingOrder(from: start)
      } else {
        entries.removeLast()
      }
    }
  }

  /// Futures settled by one callback are pushed in the order it settled them; reversing that run puts the
  /// first one on top, so it drains first.
  private func putInSettlingOrder(from start: Int) {
    if entries.count - start > 1 {
      entries[start...].reverse()
    }
  }
}

/// The thread-local key of ``DrainStack``; its destructor releases the stack when a thread exits.
private let drainStackKey: pthread_key_t = {
  var key = pthread_key_t()
  let status = pthread_key_create(&key) { pointer in
    guard let pointer else { return }
    Unmanaged<DrainStack>.fromOpaque(pointer).release()
  }
  precondition(status == 0, "pthread_key_create failed: \(status)")
  return key
}()
