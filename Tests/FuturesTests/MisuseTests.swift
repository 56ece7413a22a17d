import Dispatch
import Futures
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Futures used in ways that could never settle, and what the library promises about callbacks that run on
/// other executors.
@Suite("Misuse and executors")
struct MisuseTests {
  /// Holds a future that a closure reads after the future was made.
  final class Slot<T: Sendable>: Sendable {
    private let stored = Mutex<T?>(nil)
    var value: T? {
      get { stored.withLock { $0 } }
      set { stored.withLock { $0 = newValue } }
    }
  }

  @Test("flatMap whose closure returns the future it produces is cancelled and reported, not kept forever")
  func flatMapReturningItself() {
    UnresolvedReports.install()
    weak var released: Future<Int, TestError>?
    do {
      let slot = Slot<Future<Int, TestError>>()
      let (root, resolver) = Future<Int, TestError>.pending()
      let line = #line + 1
      let derived = root.flatMap { _ in slot.value! }
      slot.value = derived
      released = derived
      resolver.resolve(1)
      #expect(derived.outcome == .cancelled)
      let reports = UnresolvedReports.reports(line: line)
      #expect(reports.map(\.reason) == [.followedItself])
      #expect(reports.first?.description.contains("closure returned it") == true)
      slot.value = nil
    }
    #expect(released == nil, "a future that waited on itself would keep itself alive")
  }

  @Test("flatMapError whose closure returns the future it produces is cancelled and reported")
  func flatMapErrorReturningItself() {
    UnresolvedReports.install()
    let slot = Slot<Future<Int, TestError>>()
    let (root, resolver) = Future<Int, TestError>.pending()
    let line = #line + 1
    let recovered = root.flatMapError { _ in slot.value! }
    slot.value = recovered
    resolver.reject(.boom)
    #expect(recovered.outcome == .cancelled)
    #expect(UnresolvedReports.reports(line: line).map(\.reason) == [.followedItself])
    slot.value = nil
  }

  @Test("callbacks on the immediate executor never overlap, even registered from many threads at once")
  func immediateCallbacksNeverOverlap() async {
    let (future, resolver) = Future<Int, TestError>.pending()
    let running = Atomic(0)
    let overlaps = Atomic(0)
    let ran = Atomic(0)
    let body: @Sendable (Int) -> Void = { _ in
      if running.add(1, ordering: .acquiringAndReleasing).newValue > 1 { overlaps.add(1, ordering: .relaxed) }
      usleep(200)
      running.subtract(1, ordering: .acquiringAndReleasing)
      ran.add(1, ordering: .relaxed)
    }
    for _ in 0..<10 { future.whenSuccess(body) }
    await onDedicatedThreads(4) { thread in
      if thread == 0 { resolver.resolve(1) }
      for _ in 0..<50 { future.whenSuccess(body) }
    }
    #expect(ran.load(ordering: .relaxed) == 210)
    #expect(overlaps.load(ordering: .relaxed) == 0)
  }

  @Test("callbacks on a concurrent queue are handed over in registration order and may overlap")
  func concurrentExecutorMayOverlap() async {
    // What the documentation promises for other executors, and no more: the hand-over order. A concurrent
    // queue runs the callbacks side by side (BrightFutures' test of the same name saw 15 of 20 overlap).
    let queue = DispatchQueue(label: "misuse.concurrent", attributes: .concurrent)
    let handedOver = Recorder<Int>()
    let executor = ExecutionContext { job in job() }
    let (future, resolver) = Future<Int, TestError>.pending()
    let running = Atomic(0)
    let maximum = Atomic(0)
    // A callback that runs alone waits (up to 10 s, once) for a second one to start beside it, so that the
    // overlap does not depend on how busy the machine is; a serializing executor never lets that happen.
    let company = DispatchSemaphore(value: 0)
    let waited = Atomic(false)
    let done = DispatchGroup()
    for index in 0..<20 {
      done.enter()
      future.whenSuccess(on: executor) { _ in handedOver.record(index) }
      future.whenSuccess(on: .queue(queue)) { _ in
        let now = running.add(1, ordering: .acquiringAndReleasing).newValue
        maximum.max(now, ordering: .relaxed)
        if now > 1 {
          company.signal()
        } else if !waited.exchange(true, ordering: .acquiringAndReleasing) {
          _ = company.wait(timeout: .now() + 10)
        }
        running.subtract(1, ordering: .acquiringAndReleasing)
        done.leave()
      }
    }
    resolver.resolve(1)
    await withCheckedContinuation { continuation in done.notify(queue: .global()) { continuation.resume() } }
    #expect(handedOver.all == Array(0..<20))
    #expect(maximum.load(ordering: .relaxed) > 1, "a concurrent queue runs them side by side")
  }
}
