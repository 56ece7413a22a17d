import Synchronization
import Testing

@testable import Futures

/// Timers on the continuous clock, which one shared thread watches (the other clocks use sleeping tasks and
/// are covered by TimeTests).
@Suite("Deadlines on the continuous clock")
struct DeadlineThreadTests {
  @Test("a timeout fails with its error; a cancelled deadline is forgotten and a due one fires")
  func timeoutOnTheContinuousClock() async {
    let (slow, slowResolver) = Future<Int, TestError>.pending()
    #expect(await slow.timeout(.milliseconds(20), error: .timedOut).settled == .failure(.timedOut))
    #expect(slow.outcome == .cancelled)
    withExtendedLifetime(slowResolver) {}

    // Counted on a thread of its own: the shared one also watches the deadlines of tests running alongside.
    let thread = DeadlineThread()
    let fired = Mutex(0)
    let id = thread.schedule(at: .now.advanced(by: .seconds(60))) { fired.withLock { $0 += 1 } }
    #expect(thread.pendingCount == 1)
    thread.cancel(id)
    #expect(thread.pendingCount == 0)
    _ = thread.schedule(at: .now) { fired.withLock { $0 += 1 } }
    #expect(await eventually { fired.withLock { $0 } == 1 })
    #expect(thread.pendingCount == 0)
  }

  @Test("a deadline scheduled after a later one wakes the thread and fires first")
  func anEarlierDeadlineWakesTheThread() async {
    let (far, farResolver) = Future<Int, TestError>.pending()
    let farTimed = far.timeout(.seconds(30), error: .timedOut)
    // Let the thread go to sleep until the far deadline before the near one comes.
    try? await Task.sleep(for: .milliseconds(50))
    let (near, nearResolver) = Future<Int, TestError>.pending()
    let nearTimed = near.timeout(.milliseconds(30), error: .timedOut)
    // Without the wake-up the near deadline would fire at the far one, 30 s later; a task that sleeps one
    // second on its own is the reference it must beat.
    let referenceDone = Mutex(false)
    let reference = Task {
      try? await Task.sleep(for: .seconds(1))
      referenceDone.withLock { $0 = true }
    }
    #expect(await nearTimed.settled == .failure(.timedOut))
    #expect(!referenceDone.withLock { $0 }, "the near deadline fired only after a one-second sleep")
    #expect(farTimed.outcome == nil)
    reference.cancel()
    farResolver.resolve(1)
    withExtendedLifetime(nearResolver) {}
  }

  @Test("20,000 cancelled deadlines do not pile up in the thread")
  func cancelledDeadlinesAreDropped() {
    let thread = DeadlineThread()
    for _ in 0..<20_000 {
      thread.cancel(thread.schedule(at: .now.advanced(by: .seconds(600))) {})
    }
    #expect(thread.pendingCount == 0)
    #expect(thread.heldCount < 5_000, "cancelled entries must be compacted, not kept for ten minutes")
  }
}
