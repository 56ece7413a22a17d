import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerTestSupport
import Testing

/// Eight threads sending random commands to one controller on the simulated output for 10 s, while virtual
/// time runs (so tracks also end on their own): every future settles, and afterwards the published state is
/// the output's real state.
@Suite struct ControllerStormTests {
  @Test func eightThreadsOfRandomCommandsLeaveTheStateEqualToTheOutputs() async throws {
    try await ExclusiveSink.run {
      let h = Harness()
      let storm = CommandStorm(
        seconds: 10, paths: ["a.flac", "b.flac", "missing.flac", "long-c.flac", "d.flac"], longest: 30)
      // Virtual time runs about ten times faster than the wall clock, so three-second tracks end often.
      let ticking = Locked(true)
      let ticker = Thread {
        while ticking.withLock({ $0 }) {
          h.clock.advance(by: .milliseconds(10))
          usleep(1_000)
        }
      }
      ticker.start()
      let result = storm.run(on: h.controller)
      ticking.withLock { $0 = false }
      #expect(result.sent > 1_000, "a storm: \(result.sent) commands")
      #expect(result.settled == result.sent, "every future settled: \(result.settled) of \(result.sent)")
      #expect(result.succeeded > 0)
      print(
        "storm (simulated output, 8 threads, 10 s): \(result.sent) commands, \(result.settled) settled, "
          + "\(result.succeeded) succeeded")

      await h.idle()
      let final = try #require(await h.timeline.settle(h.controller.refresh(), controller: h.controller).value)
      #expect(final == h.controller.state, "refresh published what it returned")
      #expect((final.status == .playing) == h.output.isRunning, "\(final.status) vs running \(h.output.isRunning)")
      #expect(final.volume == h.output.volume)
      if final.status.hasOpenTrack {
        #expect(abs(final.position.seconds - h.output.currentPosition) < 1e-6)
      }
      #expect(h.controller.isIdle)
    }
  }
}
