import Dispatch
import Synchronization
import Testing

@testable import Futures

#if canImport(Glibc)
  import Glibc
#endif

/// Timers on the continuous clock, which one dispatch timer watches for the whole process (the other clocks
/// use a sleeping task each and are covered by TimeTests).
@Suite("Deadlines on the continuous clock")
struct ContinuousDeadlinesTests {
  @Test("a timeout fails with its error; a cancelled deadline is forgotten and a due one fires")
  func timeoutOnTheContinuousClock() async {
    let (slow, slowResolver) = Future<Int, TestError>.pending()
    #expect(await slow.timeout(.milliseconds(20), error: .timedOut).settled == .failure(.timedOut))
    #expect(slow.outcome == .cancelled)
    withExtendedLifetime(slowResolver) {}

    // Counted on an instance of its own: the shared one also watches the deadlines of tests running alongside.
    let deadlines = ContinuousDeadlines()
    let fired = Mutex(0)
    let id = deadlines.schedule(at: .now.advanced(by: .seconds(60))) { fired.withLock { $0 += 1 } }
    #expect(deadlines.pendingCount == 1)
    deadlines.cancel(id)
    #expect(deadlines.pendingCount == 0)
    _ = deadlines.schedule(at: .now) { fired.withLock { $0 += 1 } }
    #expect(await eventually { fired.withLock { $0 } == 1 })
    #expect(deadlines.pendingCount == 0)
  }

  @Test("a timeout on the continuous clock passes the outcome through, and cancelling it cancels its source")
  func timeoutPassesThroughAndCancels() async {
    let (met, metResolver) = Future<Int, TestError>.pending()
    let timed = met.timeout(.seconds(60), error: .timedOut)
    metResolver.resolve(7)
    #expect(await timed.settled == .success(7))

    let (abandoned, abandonedResolver) = Future<Int, TestError>.pending()
    let cancelled = abandoned.timeout(.seconds(60), error: .timedOut)
    cancelled.cancel()
    #expect(abandoned.outcome == .cancelled)
    #expect(cancelled.outcome == .cancelled)
    withExtendedLifetime(abandonedResolver) {}
  }

  @Test("later deadlines wake nothing: a thousand of them arm the timer once")
  func laterDeadlinesStartNoWatcher() {
    let deadlines = ContinuousDeadlines()
    let start = ContinuousClock.now
    for i in 0..<1_000 {
      let id = deadlines.schedule(at: start.advanced(by: .seconds(60) + .milliseconds(i))) {}
      if i % 2 == 0 { deadlines.cancel(id) }
    }
    #expect(deadlines.armings == 1, "a deadline later than the one the timer is armed for must not arm it")
    #expect(deadlines.pendingCount == 500)
  }

  @Test("a deadline earlier than the watched one fires on time")
  func anEarlierDeadlineFiresOnTime() async {
    let deadlines = ContinuousDeadlines()
    let far = deadlines.schedule(at: .now.advanced(by: .seconds(30))) {}
    // Let the timer be armed for the far deadline before the near one comes.
    try? await Task.sleep(for: .milliseconds(50))
    let near = Mutex(false)
    _ = deadlines.schedule(at: .now.advanced(by: .milliseconds(30))) { near.withLock { $0 = true } }
    #expect(deadlines.armings == 2)
    // Without arming the timer again the near deadline would fire with the far one, 30 s later; a task that
    // sleeps one second is the reference it must beat.
    let referenceDone = Mutex(false)
    let reference = Task {
      try? await Task.sleep(for: .seconds(1))
      referenceDone.withLock { $0 = true }
    }
    #expect(await eventually { near.withLock { $0 } })
    #expect(!referenceDone.withLock { $0 }, "the near deadline fired only after a one-second sleep")
    reference.cancel()
    deadlines.cancel(far)
  }

  @Test("deadlines keep firing in order after the timer came up on cancelled ones")
  func theWatcherGoesOnAfterCancelledDeadlines() async {
    let deadlines = ContinuousDeadlines()
    let order = Mutex<[Int]>([])
    let start = ContinuousClock.now
    let dropped = deadlines.schedule(at: start.advanced(by: .milliseconds(10))) { order.withLock { $0.append(0) } }
    _ = deadlines.schedule(at: start.advanced(by: .milliseconds(40))) { order.withLock { $0.append(2) } }
    _ = deadlines.schedule(at: start.advanced(by: .milliseconds(20))) { order.withLock { $0.append(1) } }
    deadlines.cancel(dropped)
    #expect(await eventually { order.withLock { $0.count } == 2 })
    #expect(order.withLock { $0 } == [1, 2])
    #expect(deadlines.pendingCount == 0)
    #expect(deadlines.armings == 1)
  }

  @Test("a deadline fires while every thread of the cooperative pool is blocked")
  func aDeadlineFiresWithThePoolBlocked() async {
    let deadlines = ContinuousDeadlines()
    let threads = max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    // Watched from a dispatch thread, since the pool's own threads are the ones being blocked.
    let fired = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
      DispatchQueue.global().async {
        let release = DispatchSemaphore(value: 0)
        let fire = DispatchSemaphore(value: 0)
        for _ in 0..<threads { Task.detached { release.wait() } }
        usleep(50_000)
        _ = deadlines.schedule(at: .now.advanced(by: .milliseconds(20))) { fire.signal() }
        let result = fire.wait(timeout: .now() + 2) == .success
        for _ in 0..<threads { release.signal() }
        done.resume(returning: result)
      }
    }
    #expect(fired, "a deadline that needs the cooperative pool waits for a blocked thread")
  }

  @Test("20,000 cancelled deadlines do not pile up")
  func cancelledDeadlinesAreDropped() {
    let deadlines = ContinuousDeadlines()
    for _ in 0..<20_000 {
      deadlines.cancel(deadlines.schedule(at: .now.advanced(by: .seconds(600))) {})
    }
    #expect(deadlines.pendingCount == 0)
    #expect(deadlines.heldCount < 5_000, "cancelled entries must be compacted, not kept for ten minutes")
  }
}
