import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import Testing

/// The clock a view runs from a confirmed start: it moves when the server plays the audio, not when the stream
/// was uncorked. A plain null sink that nobody records plays a new stream only after the 2-second block it
/// rendered before: a view's clock ran up to 2 s ahead there and snapped back at the pause.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseStartClockTests {
  /// What the play confirmation lets a view show at the moment the pause is confirmed is where the pause
  /// confirms the audio stopped.
  @Test func theClockOfAStartFollowsTheServer() async throws {
    let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())
    try await ExclusiveSink.run {
      _ = try await confirmed(controller.load([Fixtures.sweepFLAC]))
      _ = try await confirmed(controller.setVolume(100))
      try await judgeTheClock(of: controller)
    }
  }

  /// The same for the stream `splay play` prepares to play before its command line is parsed, which the first
  /// `open` takes running: its clock was confirmed moving from the uncork, and a view ran up to 2 s ahead of the audio
  /// on a fresh sink until the pause.
  @Test func theClockOfAPreparedStartFollowsTheServer() async throws {
    let decoders = ProbedDecoderFactory()
    try decoders.check(Fixtures.sweepFLAC)
    let output = PulseOutput()
    let controller = PlayerController(output: output, decoders: decoders)
    try await ExclusiveSink.run {
      let decoder = try #require(decoders.keptDecoder(for: Fixtures.sweepFLAC))
      output.prepare(decoder, playingWhen: .resolved(()))
      _ = try await confirmed(controller.load([Fixtures.sweepFLAC]))
      try await judgeTheClock(of: controller)
    }
  }

  /// Plays what `controller` has loaded, pauses it 2.5 s later and judges the play confirmation's clock against
  /// the pause's position and, on the truth sink, against the first frame the sink played.
  private func judgeTheClock(of controller: PlayerController) async throws {
    // Nobody records the truth sink's monitor: it renders in 2-second blocks, as a desktop's null sink does.
    let recorder = try MonitorRecorder(drivingTheSink: false)
    let played = try await confirmed(controller.play())
    // Past any block in progress, so that the stream is heard before the pause.
    try await Task.sleep(for: .milliseconds(2_500))
    let paused = try await confirmed(controller.pause())
    let recording = recorder.stop()
    _ = try await confirmed(controller.stop())
    let shown = played.position.estimated(at: paused.position.confirmedAt)
    #expect(
      abs(shown - paused.position.seconds) <= 0.05,
      "the view showed \(shown) s when the pause confirmed \(paused.position.seconds) s (play: \(played.position))")
    // On the truth sink, also when the first frame played: where the state says the clock starts.
    try Skip.when(
      PulseEnvironment.truthFile == nil ? "when the sink played its first frame: needs the truth sink" : nil)
    let first = try #require(recording.firstAudibleFrame(), "nothing played")
    let heard = try #require(recording.time(ofFrame: first))
    let moves = played.position.movesAt ?? played.position.confirmedAt
    let error = (Double(moves) - Double(heard)) / 1e6
    #expect(abs(error) <= 20, "the clock starts \(error) ms from the first frame the sink played")
  }
}
