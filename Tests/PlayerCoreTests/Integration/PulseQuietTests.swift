import AudioTestSupport
import Foundation
import Futures
import Testing

@testable import PlayerCore

/// What a player costs the machine while nothing plays: a paused stream asks the server for nothing, so the
/// player's threads sleep until a command or the server's event wakes them.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseQuietTests {
  /// libpulse's automatic timing updates polled every 1.5 s even while corked (and every 10-1,280 ms for the
  /// first 2.5 s after each cork): paused, splay's mainloop thread woke 1.4 times a second for them.
  @Test func aPausedStreamAsksTheServerForNoTimingUpdates() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let controller = PlayerController(output: output)
      _ = await controller.load([Fixtures.sweepFLAC]).settled
      #expect(await controller.play().settled.value?.status == .playing)
      try await Task.sleep(for: .milliseconds(500))
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

  /// While audio flows with nothing asked, the server wakes the player for a quarter of a 4 s buffer at a time
  /// instead of a quarter of 200 ms (PulseAudio only: on PipeWire the buffer sets the graph's quantum). A cork
  /// gives the larger buffer back, so that the next start is as quick as the first. The server keeps part of
  /// the buffer in its sink (a plain null sink: `tlength` 1.1 s of the 4 s asked for).
  @Test func aSteadyStreamTakesALargerBufferUntilACork() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let controller = PlayerController(output: output)
      _ = await controller.load([Fixtures.sweepFLAC]).settled
      #expect(await controller.play().settled.value?.status == .playing)
      let start = try #require(output.serverBufferSeconds)
      #expect(start <= 0.25, "a starting stream has the start-up buffer: \(start) s")
      try await Task.sleep(for: .milliseconds(3500))
      let steady = try #require(output.serverBufferSeconds)
      if output.serverIsPipeWire {
        #expect(steady <= 0.25, "PipeWire keeps the start-up buffer: \(steady) s")
      } else {
        #expect(steady >= 0.5, "3.5 s of steady audio: \(steady) s")
      }
      #expect(await controller.pause().settled.value?.status == .paused)
      try await Task.sleep(for: .milliseconds(200))
      let paused = try #require(output.serverBufferSeconds)
      #expect(paused <= 0.25, "a cork gives the steady buffer back: \(paused) s")
      _ = await controller.stop().settled
    }
  }

  /// A server acknowledges a drain once the audio is in its sink, whose latency grows with the buffer: the
  /// start-up buffer comes back once the decoder has reached the end of the track, seconds before the drain.
  @Test func theEndOfATrackIsPlayedWithTheStartUpBuffer() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let controller = PlayerController(output: output)
      _ = await controller.load([Fixtures.sweepFLAC]).settled
      _ = await controller.seek(to: 15).settled
      #expect(await controller.play().settled.value?.status == .playing)
      var sawSteady = output.serverIsPipeWire
      var position = 15.0
      while position < 27.5 {
        try await Task.sleep(for: .milliseconds(100))
        sawSteady = sawSteady || (output.serverBufferSeconds ?? 0) >= 0.5
        position = try #require(await controller.refresh().settled.value).position.seconds
      }
      #expect(sawSteady, "the steady buffer came before the decoder reached the end")
      let end = try #require(output.serverBufferSeconds)
      #expect(end <= 0.25, "2.5 s before the end the buffer is the start-up one again: \(end) s")
      _ = await controller.stop().settled
    }
  }
}
