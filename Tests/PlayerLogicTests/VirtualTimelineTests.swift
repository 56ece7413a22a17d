import Futures
import PlayerCore
import PlayerTestSupport
import Testing

/// Virtual time moves only when the controller says it has caught up, and never gives up on wall time: a step
/// that nothing can settle is reported as the bug it is, at once.
@Suite struct VirtualTimelineTests {
  /// A deadline on the virtual clock is scheduled in the call: a timeline that looks right after it sees it
  /// (a sleeping task registered it only once it ran, which the timeline had to poll for).
  @Test func aDeadlineOnTheVirtualClockIsScheduledInTheCall() async {
    let clock = VirtualClock()
    let (pending, resolver) = Future<Int, PlayerError>.pending()
    let timed = pending.timeout(.seconds(3), clock: clock, error: .timeout(command: "test", seconds: 3))
    #expect(clock.nextDeadline == clock.now.advanced(by: .seconds(3)))
    clock.advance(by: .seconds(3))
    #expect(timed.outcome == .failure(.timeout(command: "test", seconds: 3)), "fired within the advance")
    #expect(resolver.isCancelled)
  }

  @Test func aCancelledDeadlineLeavesTheClock() {
    let clock = VirtualClock()
    let (pending, resolver) = Future<Int, PlayerError>.pending()
    let timed = pending.timeout(.seconds(3), clock: clock, error: .cancelled)
    resolver.resolve(1)
    #expect(timed.outcome == .success(1))
    #expect(clock.nextDeadline == nil, "the deadline is withdrawn with its future")
  }

  /// The controller resolves `quiescence()` itself: at once when idle, and when the job in flight waits.
  @Test func theControllerSaysWhenItHasCaughtUp() async {
    let harness = Harness()
    #expect(harness.controller.quiescence().isSettled, "idle")
    let load = harness.controller.load(["a.flac"])
    _ = await harness.controller.quiescence().settled
    #expect(harness.controller.isQuiescent)
    #expect(await harness.timeline.settle(load, controller: harness.controller).succeeded)
  }

  /// A future the controller will never settle, with nothing due on the clock: reported at once as a stall,
  /// not as a `timeout` after seconds of wall time.
  @Test func aStepNothingCanSettleIsReportedAsAStall() async {
    let harness = Harness()
    let (never, resolver) = Future<Int, PlayerError>.pending()
    let started = ContinuousClock.now
    let outcome = await harness.timeline.settle(never, controller: harness.controller)
    #expect(ContinuousClock.now - started < .seconds(1))
    guard case .failure(let error) = outcome else {
      Issue.record("settled as \(outcome)")
      return
    }
    #expect(error.code != "timeout")
    #expect(error.message.contains("stalled"), "\(error.message)")
    resolver.resolve(0)
  }
}
