import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerLibrary
import PlayerPulse
import PlayerTestSupport
import Testing

/// The tracks of a cue sheet played through the real server: one file's tracks follow each other without a gap
/// (the sink gets the file whole), and each track is published once the server played its first frame.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseCueTests {
  let controller = PlayerController(
    output: PulseOutput(), decoders: CueTrackDecoderFactory(opening: StandardDecoderFactory()))

  @Test func aSheetsTracksPlayAsTheirFileWithoutAGapAndEachIsPublishedAtItsStart() async throws {
    try await BackToBack.retryingAfterADropout("PulseCueTests", run)
  }

  /// One run of the test above; returns true when it should be run again.
  private func run(lastAttempt: Bool) async throws -> Bool {
    try await ExclusiveSink.run(stopping: controller) {
      let tree = try TrackListExpanderTests.Tree()
      try tree.audio("Album/ladder.flac", from: Fixtures.stereoFLAC)
      let sheet = try tree.text("Album/ladder.cue", CueSheetTests.sheet)
      let tracks = TrackListExpander().expand([sheet]).paths
      let reference = try decodedLeft(Fixtures.stereoFLAC).samples
      let starts = Locked<[Int: PlayerState]>([:])
      let observation = controller.observe { state in
        if let index = state.index, state.status == .playing { starts.withLock { $0[index] = $0[index] ?? state } }
      }
      defer { observation.cancel() }
      let recorder = try MonitorRecorder()
      _ = try await confirmed(controller.load(tracks))
      _ = try await confirmed(controller.setVolume(100))
      _ = try await confirmed(controller.play())
      let ended = await published(by: controller, within: 15) { $0.status == .ended }
      let recording = recorder.stop()
      #expect(ended?.index == 2)
      let boundaries = CueSheetTests.boundaries.dropFirst().dropLast().map(Int.init)
      if try BackToBack.judge(
        recording, holds: reference, boundaries: boundaries, lastAttempt: lastAttempt, "the three tracks are the file")
      {
        return true
      }
      // Each track was published playing, from its first frame on, within 100 ms of it.
      let published = starts.withLock { $0 }
      for index in 1...2 {
        let state = try #require(published[index], "track \(index + 1) was never published playing")
        #expect(state.track?.path == tracks[index])
        #expect(state.position.seconds < 0.1, "track \(index + 1) published at \(state.position.seconds) s")
      }
      return false
    }
  }
}
