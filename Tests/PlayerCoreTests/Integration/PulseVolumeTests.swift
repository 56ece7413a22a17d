import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import Testing

/// The published volume is the stream's volume at the server, on servers whose session manager restores a
/// saved volume for each new stream (WirePlumber on PipeWire) as on those that do not.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
final class PulseVolumeTests {
  private let track = Fixtures.sweepFLAC

  /// The sink input `controller` opened after `known` were listed, and its volume in percent.
  private func sinkInput(notIn known: Set<String>) async throws -> (index: String, volume: Int) {
    try #require(try await PulseEnvironment.newSinkInput(notIn: known), "no sink input of this process")
  }

  /// Plays the track briefly and sets its stream to `percent` from outside, as pavucontrol would: a session
  /// manager saves it for the next stream of this application.
  private func leaveSavedVolume(_ percent: Int) async throws {
    let known = try PulseEnvironment.ownSinkInputIndices()
    let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())
    _ = await controller.load([track]).settled
    _ = await controller.play().settled
    let input = try await sinkInput(notIn: known)
    _ = try PulseEnvironment.run("/usr/bin/pactl", ["set-sink-input-volume", input.index, "\(percent)%"])
    _ = await published(by: controller, within: 3) { $0.volume == percent }
    _ = await controller.shutdown().settled
  }

  @Test func theFirstStateCarriesTheVolumeTheServerGaveTheNewStream() async throws {
    try await ExclusiveSink.run {
      try await leaveSavedVolume(70)
      for _ in 0..<3 {
        let known = try PulseEnvironment.ownSinkInputIndices()
        let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())
        let loaded = try #require(await controller.load([track]).settled.value)
        _ = await controller.play().settled
        let input = try await sinkInput(notIn: known)
        try await Task.sleep(for: .milliseconds(300))
        let server = try #require(try PulseEnvironment.ownSinkInputs().first { $0.index == input.index }).volume
        #expect(loaded.volume == server, "published \(loaded.volume) % while the server plays it at \(server) %")
        #expect(controller.state.volume == server)
        _ = await controller.shutdown().settled
      }
    }
  }

  /// WirePlumber re-applies the saved volume 0.5-2.5 ms after a stream appears; a `volume` sent right after the
  /// load lost that race in 3 of 6 scripts ("expected volume 50, confirmed 70").
  @Test func anExplicitVolumeWinsOverASavedOne() async throws {
    try await ExclusiveSink.run {
      for _ in 0..<4 {
        try await leaveSavedVolume(70)
        let known = try PulseEnvironment.ownSinkInputIndices()
        let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())
        _ = await controller.load([track]).settled
        let set = await controller.setVolume(50).settled
        #expect(set.value?.volume == 50)
        _ = await controller.play().settled
        let input = try await sinkInput(notIn: known)
        try await Task.sleep(for: .milliseconds(400))
        #expect(controller.state.volume == 50)
        let server = try PulseEnvironment.ownSinkInputs().first { $0.index == input.index }?.volume
        #expect(server == 50, "the server plays it at the volume asked for")
        _ = await controller.shutdown().settled
      }
    }
  }

  /// Sink input `index`'s mute flag, as `pactl` lists it.
  private func sinkInputMuted(_ index: String) throws -> Bool? {
    let listing = try PulseEnvironment.run("/usr/bin/pactl", ["list", "sink-inputs"]).stdout
    guard let block = listing.components(separatedBy: "Sink Input #").first(where: { $0.hasPrefix(index + "\n") })
    else { return nil }
    return block.contains("Mute: yes")
  }

  /// Mute is the server's mute flag, confirmed: the sink input is muted at the level it had, the sink hears
  /// nothing, and unmute brings the audio back at that level. A mute made by another program is published.
  @Test func muteIsTheServersFlagAndKeepsTheLevel() async throws {
    try await ExclusiveSink.run {
      let known = try PulseEnvironment.ownSinkInputIndices()
      let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())
      _ = await controller.load([track]).settled
      let opened = MonitorRecorder.now()
      _ = await controller.setVolume(60).settled
      _ = await controller.play().settled
      let input = try await sinkInput(notIn: known)
      let muted = try #require(await controller.send(.mute(true)).settled.value)
      #expect(muted.muted && muted.volume == 60)
      #expect(try sinkInputMuted(input.index) == true, "the server's flag, confirmed")
      #expect(try PulseEnvironment.ownSinkInputs().first { $0.index == input.index }?.volume == 60, "the level stays")
      try await Task.sleep(for: .milliseconds(300))
      let recorder = try MonitorRecorder()
      try await Task.sleep(for: .milliseconds(400))
      #expect(recorder.stop().firstAudibleFrame() == nil, "nothing reaches the sink while muted")
      let unmuted = try #require(await controller.send(.mute(false)).settled.value)
      #expect(!unmuted.muted && unmuted.volume == 60)
      #expect(try sinkInputMuted(input.index) == false)
      // Past the stream's first second, where a change from outside is a session manager's restore and undone.
      try await Task.sleep(for: .seconds(max(0, 1.1 - Double(MonitorRecorder.now() - opened) / 1e9)))
      _ = try PulseEnvironment.run("/usr/bin/pactl", ["set-sink-input-mute", input.index, "1"])
      let outside = await published(by: controller, within: 3) { $0.muted }
      #expect(outside?.volume == 60, "another program's mute is published, the level kept")
      // Unmuted again from outside: a session manager saves the flag for this program's next streams.
      _ = try PulseEnvironment.run("/usr/bin/pactl", ["set-sink-input-mute", input.index, "0"])
      #expect(await published(by: controller, within: 3) { !$0.muted } != nil)
      _ = await controller.shutdown().settled
    }
  }
}
