import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import Testing

/// Faults of the audio server other than its death, against the private server.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseFaultTests {
  /// The sandbox daemon's pid, from `scripts/pulse-sandbox pid`.
  private func daemon() throws -> pid_t {
    let found = try PulseEnvironment.run(PulseServerLossTests.sandbox, ["pid"])
    return try #require(pid_t(found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "no sandbox pid")
  }

  @Test func aServerThatStopsAnsweringTimesCommandsOutChangesNothingAndIsFollowedWhenItContinues() async throws {
    try await ExclusiveSink.run {
      let deadline = 0.5
      let controller = PlayerController(
        output: PulseOutput(), decoders: StandardDecoderFactory(),
        configuration: ControllerConfiguration(deadline: .milliseconds(Int(deadline * 1000))))
      _ = await controller.load([Fixtures.sweepFLAC]).settled
      let playing = try #require(await controller.play().settled.value)
      #expect(playing.status == .playing)
      try await Task.sleep(for: .milliseconds(300))

      // What the server confirmed until it stops (on PipeWire that can include WirePlumber's restored volume).
      let beforeStop = controller.state
      let pid = try daemon()
      kill(pid, SIGSTOP)
      let sent = MonitorRecorder.now()
      let pause = await controller.pause().settled
      let waited = Double(MonitorRecorder.now() - sent) / 1e9
      let stateWhileStopped = controller.state
      kill(pid, SIGCONT)

      #expect(pause.error?.code == "timeout", "\(pause)")
      // The deadline, then the deadline of the re-read of the real state, which cannot answer either.
      #expect(waited < deadline * 2 + 0.5, "settled after \(waited) s")
      #expect(stateWhileStopped.status == .playing, "nothing was confirmed, so nothing changed")
      #expect(stateWhileStopped.revision == beforeStop.revision)

      // Continued, the server carries out the cork it was sent: the state must follow what it confirms.
      let corked = await published(by: controller, within: 3) { $0.status == .paused }
      #expect(corked != nil, "the late confirmation of the cork was published")
      let real = try #require(await controller.refresh().settled.value)
      #expect(real.status == .paused, "the published state matches the server's: \(real.status)")
      // And the player works as before.
      #expect(await controller.play().settled.value?.status == .playing)
      #expect(await controller.pause().settled.value?.status == .paused)
      _ = await controller.stop().settled
    }
  }

  /// Whether the server shows sink input `index` on `sink` within 5 s.
  private func serverShows(_ index: String, on sink: String) async throws -> Bool {
    let sinkIndex = try pactl("list", "short", "sinks").split(separator: "\n")
      .first { $0.split(separator: "\t").dropFirst().first == Substring(sink) }?.split(separator: "\t").first
    for _ in 0..<100 {
      let input = try pactl("list", "short", "sink-inputs").split(separator: "\n")
        .first { $0.split(separator: "\t").first == Substring(index) }
      if let input, input.split(separator: "\t").dropFirst().first == sinkIndex { return true }
      try await Task.sleep(for: .milliseconds(50))
    }
    return false
  }

  /// Runs `pactl` against the private server and returns its output; fails the test when it fails.
  private func pactl(_ arguments: String...) throws -> String {
    let result = try PulseEnvironment.run("/usr/bin/pactl", arguments)
    try #require(result.status == 0, "pactl \(arguments.joined(separator: " ")): \(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func aStreamMovedToAnotherSinkOrRescuedFromARemovedOneIsPublishedAndKeepsPlaying() async throws {
    try await ExclusiveSink.run {
      let known = try PulseEnvironment.ownSinkInputIndices()
      let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())
      let module = try pactl("load-module", "module-null-sink", "sink_name=splay_other")
      defer { _ = try? PulseEnvironment.run("/usr/bin/pactl", ["unload-module", module]) }
      _ = await controller.load([Fixtures.sweepFLAC]).settled
      _ = await controller.play().settled
      let started = await published(by: controller, within: 2) { $0.device == PulseEnvironment.sink }
      #expect(started != nil, "the stream's sink was published: \(String(describing: controller.state.device))")

      let index = try #require(try await PulseEnvironment.newSinkInput(notIn: known)?.index)
      _ = try pactl("move-sink-input", index, "splay_other")
      // PipeWire's session manager carries the move out, or, after a test froze pipewire-pulse, sometimes never
      // does: then the state must still name the sink the server shows.
      guard try await serverShows(index, on: "splay_other") else {
        #expect(controller.state.device == PulseEnvironment.sink, "the state says the stream stayed")
        _ = await controller.stop().settled
        try Skip.when("the server did not move the stream within 5 s, so the move itself was not judged")
        return
      }
      let moved = await published(by: controller, within: 1) { $0.device == "splay_other" }
      #expect(moved?.status == .playing, "the move was published and playback went on")

      // Removing the sink it plays to: the server rescues the stream onto the remaining sink.
      _ = try pactl("unload-module", module)
      let rescued = await published(by: controller, within: 1) { $0.device == PulseEnvironment.sink }
      #expect(rescued?.status == .playing, "the rescue was published and playback went on")
      // The audio still flows. A sink that renders in long blocks (pulse-plain's null sink) holds a new or
      // moved stream's position for up to a block (~1 s seen) before it plays on, so allow 3 s.
      let before = try #require(await controller.refresh().settled.value)
      var after = before
      for _ in 0..<30 where after.position.seconds <= before.position.seconds + 0.2 {
        try await Task.sleep(for: .milliseconds(100))
        after = try #require(await controller.refresh().settled.value)
      }
      #expect(after.status == .playing)
      #expect(after.position.seconds > before.position.seconds + 0.2, "the audio still flows")
      _ = await controller.stop().settled
    }
  }
}
