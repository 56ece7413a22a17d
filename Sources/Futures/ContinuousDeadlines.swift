/// Deadlines on the continuous clock, watched by a single sleeping task for all of them.
///
/// Why not a task per timer: starting a sleeping task and cancelling it wake the cooperative pool twice per
/// timeout, on the very threads the timed work needs; a player that puts a deadline on every command paid
/// about three context switches per command for it. Here a deadline later than the one the watcher sleeps
/// until wakes nothing, and a cancelled one is only forgotten: the watcher wakes at the earliest deadline it
/// was given, drops what was cancelled and sleeps until the next live one, or ends when none is left. A
/// steady stream of commands with 3-second deadlines costs one wake-up every three seconds.
///
/// A deadline earlier than the watcher's starts a new watcher for it, which takes over; the one it replaced
/// ends when it wakes. Every watcher fires what is due when it wakes, so nothing waits for a superseded one.
///
/// `fire` runs on a thread of the cooperative pool and must return quickly (settling a future is what it is
/// for).
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
    /// The watcher in charge and the instant it sleeps until; nil when none is.
    var watcher: (generation: UInt64, until: ContinuousClock.Instant)?
    var generations: UInt64 = 0
    /// Watchers started so far (tests check that later deadlines start none).
    var watchersStarted = 0
  }

  private let state = Lock(State())

  /// Calls `fire` once `deadline` has passed, unless ``cancel(_:)`` comes first.
  func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
    let (id, watcher) = state.withLock { state -> (UInt64, UInt64?) in
      state.nextID += 1
      let id = state.nextID
      state.actions[id] = fire
      Self.push(Entry(deadline: deadline, id: id), into: &state.heap)
      if let watcher = state.watcher, watcher.until <= deadline { return (id, nil) }
      state.generations += 1
      state.watcher = (state.generations, deadline)
      state.watchersStarted += 1
      return (id, state.generations)
    }
    if let watcher { startWatcher(watcher, until: deadline) }
    return id
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

  /// Watchers started so far (for tests).
  var watchersStarted: Int { state.withLock { $0.watchersStarted } }

  private func startWatcher(_ generation: UInt64, until first: ContinuousClock.Instant) {
    Task.detached { [self] in
      var until = first
      while true {
        // Nothing cancels a watcher: it always wakes, fires what is due and decides whether it goes on.
        try? await ContinuousClock().sleep(until: until, tolerance: nil)
        let (due, next) = wake(generation)
        for fire in due { fire() }
        guard let next else { return }
        until = next
      }
    }
  }

  /// Takes the actions that are due; returns the instant to sleep until when this watcher is still in charge
  /// and something is left to watch.
  private func wake(_ generation: UInt64) -> ([@Sendable () -> Void], ContinuousClock.Instant?) {
    state.withLock { state in
      let now = ContinuousClock.now
      var due: [@Sendable () -> Void] = []
      var next: ContinuousClock.Instant?
      while let top = state.heap.first {
        guard let action = state.actions[top.id] else {
          Self.popFirst(from: &state.heap)
          continue
        }
        guard top.deadline <= now else {
          next = top.deadline
          break
        }
        Self.popFirst(from: &state.heap)
        state.actions[top.id] = nil
        due.append(action)
      }
      guard state.watcher?.generation == generation else { return (due, nil) }
      if let next {
        state.watcher = (generation, next)
      } else {
        state.watcher = nil
      }
      return (due, next)
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
