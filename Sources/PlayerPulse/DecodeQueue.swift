import Dispatch
import Synchronization

/// The queue that decodes into the stream's ring, off the mainloop thread, and the flag that keeps at most one
/// fill waiting on it: the write callback asks for a fill far more often than one can run.
final class DecodeQueue: Sendable {
  private let queue = DispatchQueue(label: "splay.pulse.decode", qos: .userInitiated)
  private let fillPending = Atomic<Bool>(false)

  /// Runs `fill` on the queue unless a fill is waiting there already; the next request after it starts may
  /// queue another.
  func scheduleFill(_ fill: @escaping @Sendable () -> Void) {
    guard !fillPending.exchange(true, ordering: .acquiringAndReleasing) else { return }
    queue.async { [self] in
      fillPending.store(false, ordering: .releasing)
      fill()
    }
  }

  /// Runs `body` on the queue, after what was queued before it.
  func async(_ body: @escaping @Sendable () -> Void) {
    queue.async(execute: body)
  }

  /// Stops the process unless called on the queue.
  func assertOnQueue() {
    dispatchPrecondition(condition: .onQueue(queue))
  }
}
