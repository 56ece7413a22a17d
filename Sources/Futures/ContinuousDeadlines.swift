import Dispatch

/// Deadlines on the continuous clock, watched by a single dispatch timer for all of them.
///
/// Why not a task per timer: starting a sleeping task and cancelling it wake the cooperative pool twice per
/// timeout, on the very threads the timed work needs; a player that puts a deadline on every command paid
/// about three context switches per command for it. Here the timer is armed for the earliest deadline only:
/// a later deadline wakes nothing, a cancelled one is only forgotten, and when the timer fires it drops what
/// was cancelled and is armed again for the next live deadline. A steady stream of commands with 3-second
/// deadlines costs one wake-up every three seconds.
///
/// The timer runs on a dispatch queue of its own, not in the cooperative pool: a deadline still fires when
/// every thread of the pool is blocked (as synchronous tests beside it do for seconds), which the sleeping
/// tasks it replaced could not promise.
///
/// `fire` runs on that queue and must return quickly (settling a future is what it is for).
final class ContinuousDeadlines: Sendable {
  /// The process's deadlines.
  static let shared = ContinuousDeadlines()

  private struct Entry {
    let deadline: ContinuousClock.Instant
    let id: UInt64
  }

  private struct State {
    /// A binary min-heap on `deadline`; entries whose action is gone were cancelled.
    var heap: [Entry] = []
    var actions: [UInt64: @Sendable () -> Void] = [:]
    var nextID: UInt64 = 0
    /// What the timer is armed for; nil when it is not armed.
    var armedFor: ContinuousClock.Instant?
    /// Times a new deadline had to arm the timer (tests check that later deadlines do not).
    var armings = 0
  }

  private let state = Lock(State())
  private let queue = DispatchQueue(label: "splay.futures.deadlines")
  // A dispatch source is safe to use from any thread; it is only armed with `state`'s lock held, so that two
  // deadlines arming it at once cannot leave it armed for the later one.
  nonisolated(unsafe) private let timer: any DispatchSourceTimer

  init() {
    timer = DispatchSource.makeTimerSource(queue: queue)
    timer.setEventHandler { [weak self] in self?.fireDue() }
    timer.resume()
  }

  deinit {
    timer.cancel()
  }

  /// Calls `fire` once `deadline` has passed, unless ``cancel(_:)`` comes first.
  func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
    state.withLock { state in
      state.nextID += 1
      let id = state.nextID
      state.actions[id] = fire
      Self.push(Entry(deadline: deadline, id: id), into: &state.heap)
      if state.armedFor.map({ deadline < $0 }) ?? true {
        state.armedFor = deadline
        state.armings += 1
        arm(for: deadline)
      }
      return id
    }
  }

  /// Forgets the deadline `id`: its `fire` does not run (unless it is running already).
  func cancel(_ id: UInt64) {
    state.withLock { state in
      guard state.actions.removeValue(forKey: id) != nil else { return }
      // Cancelled entries wait in the heap until they come up; a storm of timers that are all cancelled must
      // not keep them for their whole duration, so the heap is rebuilt once most of it is dead.
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

  /// Times a new deadline armed the timer (for tests).
  var armings: Int { state.withLock { $0.armings } }

  /// Arms the timer for `deadline` (lock held).
  private func arm(for deadline: ContinuousClock.Instant) {
    let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
    let nanoseconds = seconds < 0 ? 0 : min(seconds, 1 << 32) * 1_000_000_000 + max(attoseconds, 0) / 1_000_000_000
    timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), leeway: .nanoseconds(0))
  }

  /// The timer fired (on `queue`): runs what is due and arms the timer for the next live deadline.
  private func fireDue() {
    let due = state.withLock { state -> [@Sendable () -> Void] in
      let now = ContinuousClock.now
      var due: [@Sendable () -> Void] = []
      state.armedFor = nil
      while let top = state.heap.first {
        guard let action = state.actions[top.id] else {
          Self.popFirst(from: &state.heap)
          continue
        }
        guard top.deadline <= now else {
          state.armedFor = top.deadline
          arm(for: top.deadline)
          break
        }
        Self.popFirst(from: &state.heap)
        state.actions[top.id] = nil
        due.append(action)
      }
      return due
    }
    for fire in due { fire() }
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
