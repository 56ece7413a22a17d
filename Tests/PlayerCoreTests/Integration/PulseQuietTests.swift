import AudioTestSupport
import Foundation
import Futures
import Testing

@testable import PlayerCore
@testable import PlayerDecoding
@testable import PlayerPulse

/// What a player costs the machine while nothing plays: a paused stream asks the server for nothing, so the
/// player's threads sleep until a command or the server's event wakes them.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseQuietTests {
  /// libpulse's automatic timing updates polled every 1.5 s even while corked (and every 10-1,280 ms for the
  /// first 2.5 s after each cork): paused, splay's mainloop thread woke 1.4 times a second for them.
  @Test func aPausedStreamAsksTheServerForNoTimingUpdates() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let controller = PlayerController(output: output, decoders: StandardDecoderFactory())
      _ = await controller.load([Fixtures.sweepFLAC]).settled
      #expect(await controller.play().settled.value?.status == .playing)
      _ = await waitFor(within: 3) { output.timingUpdatesAnswered >= 3 }
      let playing = output.timingUpdatesAnswered
      #expect(playing >= 3, "while audio flows, updates keep the interpolated clock true: \(playing)")

      let paused = try #require(await controller.pause().settled.value)
      #expect(paused.status == .paused)
      try await Task.sleep(for: .milliseconds(100))
      let before = output.timingUpdatesAnswered
      try await Task.sleep(for: .milliseconds(3200))
      let asked = output.timingUpdatesAnswered - before
      #expect(asked == 0, "a paused stream asked for \(asked) timing updates in 3.2 s")

      // Where the audio stops and resumes is judged at the monitor by PulseOutputTests; here, it plays on.
      #expect(await controller.play().settled.value?.status == .playing)
      _ = await controller.stop().settled
    }
  }
}
