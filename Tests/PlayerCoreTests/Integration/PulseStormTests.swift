import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import Testing

/// Eight threads sending random commands to one controller on the real server for 3 s: every future settles
/// within the deadline, and afterwards the published state is what the server says.
@Suite(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseStormTests {
  @Test func eightThreadsOfRandomCommandsAgainstTheServerLeaveAConsistentState() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let controller = PlayerController(output: output)
      let paths = [
        "ladder-44k-stereo.flac", "short-44k-stereo.flac", "ladder-48k-mono.wav", "ladder-44k-stereo.mp3",
      ].map(Fixtures.media)
      let storm = CommandStorm(seconds: 3, seed: 0x5709_1000, inFlightPerThread: 8, paths: paths, longest: 3)
      let result = storm.run(on: controller, settleTimeout: 10)
      #expect(result.sent > 100, "a storm: \(result.sent) commands")
      #expect(result.settled == result.sent, "every future settled: \(result.settled) of \(result.sent)")
      #expect(result.succeeded > 0)
      print(
        "storm (real server, 8 threads, 3 s): \(result.sent) commands, \(result.settled) settled, "
          + "\(result.succeeded) succeeded")

      let final = try #require(await controller.refresh().settled.value)
      guard final.status.hasOpenTrack else {
        #expect(!final.status.hasOpenTrack, "nothing open: \(final.status)")
        return
      }
      // Ask the server directly, around the controller.
      let real = try #require(await output.status().settled.value)
      #expect(real.running == (final.status == .playing), "\(final.status) vs running \(real.running)")
      #expect(real.position >= final.position.seconds - 0.01)
      #expect(real.position - final.position.seconds < 0.2, "\(real.position) vs \(final.position.seconds)")
      _ = await controller.stop().settled
      _ = await controller.shutdown().settled
    }
  }
}
