import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import Testing

/// Seeks to and past the end of a track on the real server, paused and playing: the confirmed state is the end
/// of the track the seek was for, and the audio that follows is what that state promises.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseSeekEndTests {
  let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())

  /// A paused seek past the end stays paused at the end of that track (README: a seek beyond the end clamps to
  /// the end), however long it waits there, and `play` then moves to the next track from its first frame.
  @Test(arguments: [
    "ladder-44k-stereo.flac", "ladder-44k-stereo.wav", "ladder-44k-stereo.mp3", "ladder-44k-stereo.ogg",
  ])
  func pausedSeekPastTheEndStaysAtTheEnd(name: String) async throws {
    try await ExclusiveSink.run(stopping: controller) {
      let first = Fixtures.media(name)
      _ = try await confirmed(controller.load([first, Fixtures.shortFLAC]))
      _ = try await confirmed(controller.setVolume(100))
      _ = try await confirmed(controller.play())
      try await Task.sleep(for: .milliseconds(600))
      _ = try await confirmed(controller.pause())
      let sought = try await confirmed(controller.seek(to: 90))
      let duration = try #require(sought.track?.duration)
      #expect(sought.index == 0, "the seek was for the first track")
      #expect(sought.status == .paused)
      #expect(abs(sought.position.seconds - duration) < 0.001, "clamped to the end, not \(sought.position.seconds)")
      // Time for a gapless offer of the next track, and for a clock that would move: nothing changes.
      let recorder = try MonitorRecorder()
      try await Task.sleep(for: .milliseconds(700))
      let held = try await confirmed(controller.refresh())
      #expect(held.index == 0, "still the first track while paused at its end")
      #expect(held.status == .paused)
      #expect(abs(held.position.seconds - duration) < 0.001, "still at the end, not \(held.position.seconds)")
      let silence = recorder.snapshot()
      #expect(silence.firstAudibleFrame() == nil, "nothing plays while paused at the end")
      // Play: the first track has nothing left, so the second one plays from its first frame.
      _ = try await confirmed(controller.play())
      let moved = await published(by: controller, within: 5) { $0.index == 1 && $0.status == .playing }
      #expect(moved != nil, "play at the end moves on to the next track")
      try await Task.sleep(for: .milliseconds(500))
      let recording = recorder.stop()
      let start = try #require(
        recording.firstAudibleFrame(after: silence.frameCount), "no audio reached the sink after play")
      let reference = try decodedLeft(Fixtures.shortFLAC).samples
      let window = Array(reference.prefix(4410))
      let left = recording.left
      let range = max(0, start - 2000)..<min(left.count - window.count, start + 2000)
      try #require(!range.isEmpty, "too little was recorded after play")
      let match = SignalAnalysis.correlate(window, in: left, range: range)
      #expect(match.correlation > 0.95, "the second track's start follows play (correlation \(match.correlation))")
    }
  }

  /// A paused seek to exactly the end is the same as one past it.
  @Test func pausedSeekToTheExactEndStaysAtTheEnd() async throws {
    try await ExclusiveSink.run(stopping: controller) {
      _ = try await confirmed(controller.load([Fixtures.stereoFLAC, Fixtures.shortFLAC]))
      _ = try await confirmed(controller.play())
      try await Task.sleep(for: .milliseconds(300))
      _ = try await confirmed(controller.pause())
      let sought = try await confirmed(controller.seek(to: 3.0))
      #expect(sought.index == 0)
      #expect(sought.status == .paused)
      #expect(abs(sought.position.seconds - 3.0) < 0.001)
      try await Task.sleep(for: .milliseconds(500))
      let held = try await confirmed(controller.refresh())
      #expect(held.index == 0 && held.status == .paused && abs(held.position.seconds - 3.0) < 0.001)
    }
  }

  /// Playing, a seek past the end ends the track there: the state moves on to the next track, playing.
  @Test func playingSeekPastTheEndMovesOn() async throws {
    try await ExclusiveSink.run(stopping: controller) {
      // A plain null sink nobody records renders 2-second blocks, and its clock jumps by as much: the next
      // track's first state said 1.03 s there once (pulse-plain, CI). Read, it renders as a device does.
      let recorder = try MonitorRecorder()
      defer { _ = recorder.stop() }
      _ = try await confirmed(controller.load([Fixtures.stereoFLAC, Fixtures.shortFLAC]))
      _ = try await confirmed(controller.play())
      try await Task.sleep(for: .milliseconds(300))
      let sought = try await confirmed(controller.seek(to: 90))
      #expect(sought.index == 1 || abs(sought.position.seconds - 3.0) < 0.001, "the end, or already the next track")
      let moved = await published(by: controller, within: 5) { $0.index == 1 && $0.status == .playing }
      #expect(moved != nil)
      #expect((moved?.position.seconds ?? 9) < 1, "the next track from its start")
    }
  }

  /// A decoder that cannot seek past 1 s: the seek fails, and the state and the audio stay where they were,
  /// paused or playing (the output had restarted the ring at frame 0 and confirmed the target).
  @Test(arguments: [false, true])
  func aSeekTheDecoderRefusesFailsAndLeavesTheAudioWhereItWas(playing: Bool) async throws {
    try await ExclusiveSink.run(stopping: controller) {
      let controller = PlayerController(output: PulseOutput(), decoders: SeekLimitedDecoderFactory(limit: 1))
      _ = try await confirmed(controller.load([Fixtures.stereoFLAC]))
      _ = try await confirmed(controller.setVolume(100))
      _ = try await confirmed(controller.play())
      try await Task.sleep(for: .milliseconds(600))
      if !playing { _ = try await confirmed(controller.pause()) }
      // Where the server says the audio is (a plain null sink has not started rendering yet: still 0), and
      // the longest it can have played until the refresh after the failed seek.
      let before = try await confirmed(controller.refresh())
      await #expect(throws: PlayerError.self) { try await confirmed(controller.seek(to: 2.5)) }
      let after = try await confirmed(controller.refresh())
      #expect(after.status == (playing ? .playing : .paused), "the status is as it was")
      let elapsed = playing ? Double(after.position.confirmedAt - before.position.confirmedAt) / 1e9 : 0
      #expect(
        after.position.seconds >= before.position.seconds - 0.02
          && after.position.seconds <= before.position.seconds + elapsed + 0.05,
        "the position is as it was: \(before.position.seconds) s, then \(after.position.seconds) s")
      let recorder = try MonitorRecorder()
      if !playing { _ = try await confirmed(controller.play()) }
      let heard = controller.state.position.seconds
      try await Task.sleep(for: .milliseconds(300))
      let recording = recorder.stop()
      let start = try #require(recording.firstAudibleFrame(), "no audio after the failed seek")
      let left = recording.left
      try #require(left.count > start + 1500)
      let step = SignalAnalysis.ladderStep(in: left[(start + 200)..<(start + 1500)], rate: recording.rate)
      // The step the state says plays (near a step's edge, the next one may already sound).
      let stated = Int(heard / 0.25)
      #expect(step == stated || step == stated + 1, "the audio plays from \(heard) s (step \(stated)), heard \(step)")
      #expect(step < 8, "not from the refused target at 2.5 s")
      // The recording's end may come after the track's (stopping the recorder takes a while): stop or not.
      _ = await controller.stop().settled
    }
  }
}

/// Opens files with the standard decoders, whose seeks beyond `limit` seconds fail.
private struct SeekLimitedDecoderFactory: AudioDecoderFactory {
  let limit: Double

  func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
    SeekLimitedDecoder(base: try StandardDecoderFactory().open(path), limit: limit)
  }
}

/// A decoder that refuses to seek beyond `limit` seconds, as a damaged index would.
private final class SeekLimitedDecoder: AudioDecoder {
  let base: any AudioDecoder
  let limit: Double

  init(base: any AudioDecoder, limit: Double) {
    self.base = base
    self.limit = limit
  }

  var info: TrackInfo { base.info }
  var nativeSampleFormat: DecodedSampleFormat { base.nativeSampleFormat }

  func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    try base.read(into: buffer, frames: frames)
  }

  func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws(PlayerError) -> Int {
    try base.read(into: buffer, frames: frames)
  }

  func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    guard Double(frame) <= limit * Double(info.sampleRate) else {
      throw .unsupportedFormat(path: info.path, detail: "cannot seek to frame \(frame)")
    }
    return try base.seek(toFrame: frame)
  }
}
