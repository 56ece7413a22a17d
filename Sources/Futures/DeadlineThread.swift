import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Watches every deadline on the continuous clock from one thread that sleeps until the earliest of them.
///
/// Why not a task per timer: a sleeping task costs two wake-ups of the cooperative pool per timeout (one to
/// start sleeping, one when it is cancelled), on the very threads the work being timed needs; a player that
/// puts a deadline on every command paid about 55 µs per command for it on two cores. Here, scheduling a
/// deadline later than the earliest one already watched wakes nothing, and a cancelled one is only marked:
/// the thread wakes at the earliest deadline it knows, drops what was cancelled and sleeps again. A steady
/// stream of commands with 5-second deadlines costs one wake-up every five seconds.
///
/// `fire` runs on this thread: it must return quickly (settling a future is what it is for).
final class DeadlineThread: Sendable {
  /// The process's one deadline thread, started on first use.
  static let shared = DeadlineThread()

  private struct Entry {
    let deadline: ContinuousClock.Instant
    let id: UInt64
  }

  private struct State {
    /// A binary min-heap on `deadline`; entries whose action is gone were cancelled.
    var heap: [Entry] = []
    var actions: [UInt64: @Sendable () -> Void] = [:]
    var nextID: UInt64 = 0
    var started = false
    /// What the thread sleeps until while it sleeps: nil when it is awake or sleeps with nothing to watch.
    var sleepingUntil: ContinuousClock.Instant?
    var sleepingWithNothing = false
  }

  private let state = Mutex(State())
  private let wake = DispatchSemaphore(value: 0)

  /// Calls `fire` on the deadline thread once `deadline` has passed, unless ``cancel(_:)`` comes first.
  func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
    let (id, mustWake, mustStart) = state.withLock { state -> (UInt64, Bool, Bool) in
      state.nextID += 1
      let id = state.nextID
      state.actions[id] = fire
      Self.push(Entry(deadline: deadline, id: id), into: &state.heap)
      let mustStart = !state.started
      state.started = true
      var mustWake = false
      if state.sleepingWithNothing {
        state.sleepingWithNothing = false
        mustWake = true
      } else if let until = state.sleepingUntil, deadline < until {
        // Earlier than what the thread sleeps until: it must look again (once, however many come).
        state.sleepingUntil = deadline
        mustWake = true
      }
      return (id, mustWake, mustStart)
    }
    if mustStart { startThread() }
    if mustWake { wake.signal() }
    return id
  }

  /// Forgets the deadline `id`: its `fire` will not run (unless it is running already).
  func cancel(_ id: UInt64) {
    state.withLock { state in
      guard state.actions.removeValue(forKey: id) != nil else { return }
      // Cancelled entries wait in the heap until they come up; a burst of timers that are all cancelled
      // (a storm of commands) must not keep them for their whole duration, so the heap is rebuilt once
      // most of it is dead.
      if state.heap.count > 1024, state.heap.count > 4 * state.actions.count {
        let live = state.heap.filter { state.actions[$0.id] != nil }
        state.heap = []
        for entry in live { Self.push(entry, into: &state.heap) }
      }
    }
  }

  /// Deadlines scheduled and neither fired nor cancelled (for tests).
  var pendingCount: Int { state.withLock { $0.actions.count } }

  /// Entries still held, cancelled ones included (for tests: they must not pile up).
  var heldCount: Int { state.withLock { $0.heap.count } }

  private func startThread() {
    let box = Unmanaged.passRetained(self).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(
      &thread, nil,
      { argument in
        Unmanaged<DeadlineThread>.fromOpaque(argument!).takeRetainedValue().run()
      }, box)
    precondition(created == 0, "cannot start the deadline thread (pthread_create: \(created))")
    pthread_detach(thread)
  }

  private func run() -> Never {
    while true {
      var due: [@Sendable () -> Void] = []
      let next = state.withLock { state -> ContinuousClock.Instant? in
        let now = ContinuousClock.now
        while let top = state.heap.first {
          guard let action = state.actions[top.id] else {
            Self.popFirst(from: &state.heap)
            continue
          }
          guard top.deadline <= now else { break }
          Self.popFirst(from: &state.heap)
          state.actions[top.id] = nil
          due.append(action)
        }
        guard due.isEmpty else { return nil }
        state.sleepingUntil = state.heap.first?.deadline
        state.sleepingWithNothing = state.heap.isEmpty
        return state.sleepingUntil
      }
      if !due.isEmpty {
        for action in due { action() }
        continue
      }
      if let next {
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: next).components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds / 1_000_000_000)
        _ = wake.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds) + 1))
      } else {
        wake.wait()
      }
      state.withLock { state in
        state.sleepingUntil = nil
        state.sleepingWithNothing = false
      }
    }
  }

  private static func push(_ entry: Entry, into heap: inout [Entry]) {
    heap.append(entry)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].deadline < heap[parent].deadline else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private static func popFirst(from heap: inout [Entry]) {
    let last = heap.removeLast()
    guard !heap.isEmpty else { return }
    heap[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
      if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
      guard smallest != parent else { return }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
  }
}
