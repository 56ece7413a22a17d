import Dispatch
import Synchronization

@testable import Futures

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A thread-safe counter for callbacks that may run on any thread.
final class Counter: Sendable {
  private let count = Atomic(0)

  func increment() {
    count.add(1, ordering: .relaxed)
  }

  var value: Int {
    count.load(ordering: .relaxed)
  }
}

/// Records events from any thread, in the order they happen.
final class Recorder<Event: Sendable>: Sendable {
  private let events = Mutex<[Event]>([])

  func record(_ event: Event) {
    events.withLock { $0.append(event) }
  }

  var all: [Event] {
    events.withLock { $0 }
  }

  func clearAll() {
    let dropped = events.withLock { events in
      defer { events = [] }
      return events
    }
    _ = dropped
  }
}

/// An object to watch with `weak` references.
final class Tracked: Sendable {}

enum TestError: Error, Equatable {
  case boom
  case other
  case timedOut
}

enum CancellableTestError: CancellableFailure, Equatable {
  case boom
  case cancelled
}

/// Collects the reports of abandoned futures from every test; each test looks for its own lines.
enum UnresolvedReports {
  private static let collected = Mutex<[FutureDiagnostics.UnresolvedFuture]>([])
  private static let installed: Bool = {
    FutureDiagnostics.unresolvedHook = { report in collected.withLock { $0.append(report) } }
    return true
  }()

  static func install() {
    precondition(installed)
  }

  /// The reports about futures created in `fileID` at `line`.
  static func reports(fileID: String = #fileID, line: Int) -> [FutureDiagnostics.UnresolvedFuture] {
    collected.withLock { $0.filter { $0.fileID == fileID && $0.line == line } }
  }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(
  within timeout: Duration = .seconds(10),
  _ condition: @Sendable () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now.advanced(by: timeout)
  while ContinuousClock.now < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return condition()
}

/// Waits until `count` derived futures or awaiting tasks wait on `future` (a task that awaits it has registered):
/// what a test sleeps for before it cancels or settles.
func untilAwaited<Value, Failure>(_ future: Future<Value, Failure>, by count: UInt32) async -> Bool {
  await eventually {
    future.withState { state in
      if case .pending(_, _, let demand) = state { demand >= count } else { false }
    }
  }
}

/// A clock that only moves when a test advances it.
final class TestClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    var offset: Duration

    func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }
  }

  private struct Sleeper {
    var deadline: Instant
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers: [Int: Sleeper] = [:]
    var cancelledBeforeSleeping: Set<Int> = []
    var nextID = 0
  }

  private let state = Mutex(State())

  var now: Instant {
    state.withLock { $0.now }
  }

  var minimumResolution: Duration { .zero }

  /// How many sleepers are waiting.
  var sleeperCount: Int {
    state.withLock { $0.sleepers.count }
  }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        enum Action { case wait, wake, cancel }
        let action: Action = state.withLock { state in
          if state.cancelledBeforeSleeping.remove(id) != nil { return .cancel }
          if deadline <= state.now { return .wake }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return .wait
        }
        switch action {
        case .wait: break
        case .wake: continuation.resume()
        case .cancel: continuation.resume(throwing: CancellationError())
        }
      }
    } onCancel: {
      let sleeper: Sleeper? = state.withLock { state in
        guard let sleeper = state.sleepers.removeValue(forKey: id) else {
          state.cancelledBeforeSleeping.insert(id)
          return nil
        }
        return sleeper
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves time forward and wakes the sleepers whose deadline has come.
  func advance(by duration: Duration) {
    let due: [Sleeper] = state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.value.deadline <= now }
      for id in due.keys { state.sleepers[id] = nil }
      return due.sorted { $0.key < $1.key }.map(\.value)
    }
    for sleeper in due {
      sleeper.continuation.resume()
    }
  }
}

/// Runs `body` on `count` dedicated threads that start together, and returns when all have finished.
///
/// Real threads rather than a dispatch pool, so that every role of a race really runs at the same time even
/// on a 2-core machine.
func onDedicatedThreads(_ count: Int, _ body: @escaping @Sendable (_ thread: Int) -> Void) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    DispatchQueue.global().async {
      let ready = Atomic(0)
      let threads = (0..<count).map { index in
        DedicatedThread {
          ready.add(1, ordering: .acquiringAndReleasing)
          while ready.load(ordering: .acquiring) < count {}
          body(index)
        }
      }
      for thread in threads { thread.join() }
      continuation.resume()
    }
  }
}

/// Runs heavy synchronous work on a dedicated thread and returns its result, so that the cooperative pool
/// stays free for the tests that need tasks (timers, awaiting) meanwhile. The thread has the default 8 MiB
/// stack, like a main thread, so stack-safety tests mean the same there.
func onDedicatedThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
  let result = Mutex<Result?>(nil)
  await onDedicatedThreads(1) { _ in
    let value = body()
    result.withLock { $0 = value }
  }
  return result.withLock { $0! }
}

/// A bare POSIX thread, started at once.
final class DedicatedThread {
  private var thread: pthread_t

  init(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    #if canImport(Glibc)
      var thread = pthread_t()
    #else
      var thread: pthread_t?
    #endif
    let status = pthread_create(
      &thread,
      nil,
      { context in
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        box.body()
        return nil
      },
      box
    )
    precondition(status == 0)
    #if canImport(Glibc)
      self.thread = thread
    #else
      self.thread = thread!
    #endif
  }

  func join() {
    pthread_join(thread, nil)
  }

  private final class Box {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
}

/// A weak reference that `@Sendable` closures may read.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
  private struct Box {
    weak var object: Object?
  }

  private let box: Mutex<Box>

  init(_ object: Object) {
    box = Mutex(Box(object: object))
  }

  var object: Object? {
    box.withLock { $0.object }
  }
}
