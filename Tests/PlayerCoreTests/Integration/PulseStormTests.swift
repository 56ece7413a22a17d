import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import PlayerTestSupport
import Testing

/// Eight threads sending random commands to one controller on the real server for 3 s: every future settles
/// within the deadline, and afterwards the published state is what the server says.
@Suite(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseStormTests {
  @Test func eightThreadsOfRandomCommandsAgainstTheServerLeaveAConsistentState() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let controller = PlayerController(output: output, decoders: StandardDecoderFactory())
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

      // The published state after a refresh, and the server's own answer right after it, around the controller.
      // A track may end between the two reads; a second pair of reads tells such a moment from a real
      // difference.
      var final = try #require(await controller.refresh().settled.value)
      var real = try #require(await output.status().settled.value)
      func agree() -> Bool {
        guard final.status.hasOpenTrack else { return true }
        return real.running == (final.status == .playing) && real.position >= final.position.seconds - 0.01
          && real.position - final.position.seconds < 0.2
      }
      if !agree() {
        print(
          "storm: differing reads (published \(final.status) at \(final.position.seconds) s of \(String(describing: final.track?.path)); server running \(real.running) at \(real.position) s); reading again"
        )
        try await Task.sleep(for: .milliseconds(200))
        final = try #require(await controller.refresh().settled.value)
        real = try #require(await output.status().settled.value)
      }
      #expect(
        agree(),
        "published \(final.status) at \(final.position.seconds) s of \(String(describing: final.track?.path)); server running \(real.running) at \(real.position) s"
      )
      // A session manager (WirePlumber) gives a new stream of this program the volume its last one had; the
      // storm's last may be 0, which left the next suite's streams silent on PipeWire. 100 % is left instead.
      _ = await controller.load([paths[0]]).settled
      _ = await controller.setVolume(100).settled
      if PulseEnvironment.flavour == "pipewire" { try await Task.sleep(for: .milliseconds(500)) }
      _ = await controller.stop().settled
      _ = await controller.shutdown().settled
    }
  }
}
