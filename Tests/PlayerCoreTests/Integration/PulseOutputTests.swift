import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import PlayerScripts
import PlayerTestSupport
import Testing

/// PulseOutput against the real (private, null-sink) server, judged by what reached the sink's monitor.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseOutputTests {
  let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())

  private func settle(_ future: Future<PlayerState, PlayerError>) async throws -> PlayerState {
    try await confirmed(future)
  }

  /// Loads `paths` at full volume: on PipeWire, WirePlumber gives a new stream the volume that an earlier test
  /// left, and these tests compare samples at unity gain.
  private func load(_ paths: [String]) async throws {
    _ = try await settle(controller.load(paths))
    _ = try await settle(controller.setVolume(100))
  }

  /// Where `probe` starts in `signal` (searched in `range`), and whether it is there: sample for sample where
  /// the monitor records exactly, else by cross-correlation (see `PulseEnvironment.inexactRecording`).
  private func locate(_ probe: [Float], in signal: [Float], range: Range<Int>) -> (offset: Double, found: Bool) {
    guard PulseEnvironment.inexactRecording != nil else {
      let match = SignalAnalysis.bestOffset(of: probe, in: signal, range: range, length: probe.count)
      return (Double(match.offset), match.error < 1e-3)
    }
    let match = SignalAnalysis.correlate(probe, in: signal, range: range)
    return (match.offset, match.correlation > 0.95)
  }

  private func waitForEnd(timeout: Double = 15) async -> PlayerState? {
    await published(by: controller, within: timeout) { $0.status == .ended }
  }

  @Test(
    .enabled(
      if: PulseEnvironment.inexactRecording == nil,
      "needs a monitor that records exactly: the pulse sandbox, or PipeWire at 44.1 kHz"),
    arguments: ["ladder-44k-stereo.wav", "ladder-44k-stereo.flac"])
  func losslessFilesReachTheSinkSampleExactAtUnityGain(name: String) async throws {
    try await BackToBack.retryingAfterADropout("PulseOutputTests: lossless") { lastAttempt in
      try await losslessRun(name, lastAttempt: lastAttempt)
    }
  }

  /// One run of the test above; returns true when it should be run again (it failed across a dropout, which a
  /// busy machine can cause and the gapless and pause tests judge).
  private func losslessRun(_ name: String, lastAttempt: Bool) async throws -> Bool {
    try await ExclusiveSink.run(stopping: controller) {
      let reference = try decodedLeft(Fixtures.media(name)).samples
      let recorder = try MonitorRecorder()
      try await load([Fixtures.media(name)])
      _ = try await settle(controller.play())
      let ended = await waitForEnd()
      let recording = recorder.stop()
      #expect(ended?.status == .ended)
      let left = recording.left
      let start = try #require(recording.firstAudibleFrame(), "no audio reached the sink")
      // The first audible sample may come a little after the file's first (quiet) samples: find the alignment.
      let match = SignalAnalysis.bestOffset(of: reference, in: left, range: max(0, start - 200)..<(start + 200))
      let difference = SignalAnalysis.maximumDifference(left, offset: match.offset, reference: reference)
      let dropout = recording.firstSilentFrame(after: start, lasting: 44).map { $0 < start + reference.count - 44 }
      if dropout == true || PulseEnvironment.graphMayGlitch != nil, !lastAttempt,
        match.error >= 1e-4 || difference >= 1e-4
      {
        return true
      }
      #expect(match.error < 1e-4, "the sink got other samples than the file's")
      #expect(difference < 1e-4, "the whole file, in order, nothing skipped or repeated (max difference \(difference))")
      return false
    }
  }

  @Test(arguments: [
    "ladder-44k-stereo.ogg", "ladder-44k-stereo.opus", "ladder-44k-stereo.mp3", "ladder-48k-mono.flac",
    "ladder-48k-mono.wav", "ladder-48k-mono.mp3",
  ])
  func everyFormatAndLayoutPlaysItsContentInOrder(name: String) async throws {
    try await playsTheLadderInOrder(Fixtures.media(name))
  }

  /// The ladder as M4A, made by ffmpeg at test time: AAC (as ffmpeg makes it by default) and ALAC, through
  /// the FFmpeg decoder.
  @Test(arguments: [("ladder-aac.m4a", ["-c:a", "aac", "-b:a", "192k"]), ("ladder-alac.m4a", ["-c:a", "alac"])])
  func m4aPlaysItsContentInOrder(name: String, options: [String]) async throws {
    try await playsTheLadderInOrder(try FFmpegFixtures.transcode("ladder-44k-stereo.wav", as: name, options))
  }

  private func playsTheLadderInOrder(_ path: String) async throws {
    try await ExclusiveSink.run(stopping: controller) {
      let recorder = try MonitorRecorder()
      try await load([path])
      _ = try await settle(controller.play())
      let ended = await waitForEnd()
      let recording = recorder.stop()
      #expect(ended?.status == .ended)
      let start = try #require(recording.firstAudibleFrame(threshold: 0.05), "no audio reached the sink")
      let steps = SignalAnalysis.ladderSteps(recording.left, from: start, rate: recording.rate, count: 12)
      #expect(steps == Array(0..<12), "the quarter-second tone steps, in order")
    }
  }

  @Test func sameFormatTracksFollowEachOtherWithoutAGap() async throws {
    try await BackToBack.retryingAfterADropout("PulseOutputTests: gapless", gaplessRun)
  }

  /// One run of the test above; returns true when it should be run again.
  private func gaplessRun(lastAttempt: Bool) async throws -> Bool {
    try await ExclusiveSink.run(stopping: controller) {
      let names = ["ladder-44k-stereo.flac", "short-44k-stereo.flac"]
      let reference = try names.flatMap { try decodedLeft(Fixtures.media($0)).samples }
      let changes = Locked<[PlayerState]>([])
      let observation = controller.observe { state in
        if state.index == 1 { changes.withLock { $0.append(state) } }
      }
      defer { observation.cancel() }
      let recorder = try MonitorRecorder()
      try await load(names.map(Fixtures.media))
      _ = try await settle(controller.play())
      let ended = await waitForEnd()
      let recording = recorder.stop()
      #expect(ended?.status == .ended)
      #expect(ended?.index == 1)
      let boundary = try decodedLeft(Fixtures.media(names[0])).samples.count
      if try BackToBack.judge(
        recording, holds: reference, boundaries: [boundary], lastAttempt: lastAttempt, "both files back to back")
      {
        return true
      }
      // The change of track was confirmed while playing, from the boundary on, before the end.
      let first = try #require(changes.withLock { $0.first }, "the second track was never published")
      #expect(first.status == .playing)
      #expect(first.track?.path == Fixtures.media(names[1]))
      #expect(first.position.seconds < 0.1, "published within 100 ms of the boundary: \(first.position.seconds)")
      return false
    }
  }

  @Test(
    .enabled(
      if: PulseEnvironment.monitorRewinds == nil,
      "the monitor of a rewinding sink keeps audio that a seek replaced: judged on the other servers"))
  func aSeekBackIntoATrackWhoseSuccessorWasDecodedStillPlaysTheSuccessorFromItsStart() async throws {
    // A second attempt only when the first was starved (a silent gap inside audio that has none): the
    // comparison is sample-exact, and a neighbour suite can hold both CPUs past the buffer.
    try await BackToBack.retryingAfterADropout("PulseOutputTests: seek back", seekBackIntoADecodedSuccessor)
  }

  /// One run of the test above; returns true when it should be run again (starved, not the last attempt).
  private func seekBackIntoADecodedSuccessor(lastAttempt: Bool) async throws -> Bool {
    try await ExclusiveSink.run(stopping: controller) {
      let names = ["ladder-44k-stereo.flac", "short-44k-stereo.flac"]
      let first = try decodedLeft(Fixtures.media(names[0])).samples
      let second = try decodedLeft(Fixtures.media(names[1])).samples
      let recorder = try MonitorRecorder()
      try await load(names.map(Fixtures.media))
      _ = try await settle(controller.play())
      // By 1.5 s the decoder, two seconds ahead, has passed the first track's end into the second.
      try await Task.sleep(for: .milliseconds(1_500))
      let target = 0.5
      let sought = try await settle(controller.seek(to: target))
      #expect(sought.index == 0)
      #expect(sought.status == .playing)
      let ended = await waitForEnd()
      let recording = recorder.stop()
      #expect(ended?.index == 1)
      let left = recording.left
      let start = try #require(recording.firstAudibleFrame(), "no audio reached the sink")
      // The first pass played `target` about 0.5 s in; the replay after the seek comes after 1.5 s.
      let targetFrame = Int(target * 44_100)
      let expected = Array(first[targetFrame...]) + second
      let probe = Array(expected[0..<4096])
      let found = locate(probe, in: left, range: (start + 44_100)..<(left.count - 4096))
      #expect(found.found, "the audio at \(target) s came back after the seek")
      if PulseEnvironment.inexactRecording == nil {
        let difference = SignalAnalysis.maximumDifference(left, offset: Int(found.offset), reference: expected)
        let gap = recording.firstSilentFrame(after: Int(found.offset), lasting: 441)
        let dropout = gap.map { $0 < Int(found.offset) + expected.count - 441 } ?? false
        if difference >= 1e-4, dropout || PulseEnvironment.graphMayGlitch != nil, !lastAttempt { return true }
        #expect(
          difference < 1e-4, "the rest of the first track, then the whole second one (max difference \(difference))")
      } else {
        let boundary = expected.count - second.count
        let around = Array(expected[(boundary - 2048)..<(boundary + 2048)])
        // Anywhere after the seek: a tone's period makes `found` ambiguous by a few milliseconds.
        let joined = locate(around, in: left, range: (start + 44_100)..<(left.count - 4096))
        #expect(joined.found, "then the second track from its start, without a gap or a repeat")
      }
      return false
    }
  }

  /// The sweep as FLAC, and as M4A (AAC as ffmpeg makes it by default, and ALAC) through the FFmpeg decoder.
  /// Where the recording is resampled (PipeWire at 48 kHz) only the FLAC is judged: the M4A cases check the
  /// FFmpeg decoder's frame grid, which a resampled recording cannot show (one failed there in test-servers).
  static func sweeps() throws -> [String] {
    guard PulseEnvironment.resampled == nil else { return [Fixtures.sweepFLAC] }
    return [
      Fixtures.sweepFLAC,
      try FFmpegFixtures.transcode("sweep-30s.flac", as: "sweep-aac.m4a", ["-c:a", "aac", "-b:a", "192k"]),
      try FFmpegFixtures.transcode("sweep-30s.flac", as: "sweep-alac.m4a", ["-c:a", "alac"]),
    ]
  }

  @Test(
    .enabled(
      if: PulseEnvironment.monitorRewinds == nil,
      "continuity needs a monitor that keeps no audio a rewind replaced: the truth sink on plain PulseAudio"),
    arguments: try sweeps())
  func pauseSilencesTheSinkAndResumeContinuesWhereItStopped(sweep: String) async throws {
    var attempt = 1
    while try await pauseRun(sweep, lastAttempt: attempt == 2) { attempt += 1 }
  }

  /// One run of the test above; true when it should run again: the confirmed position missed where the audio
  /// stopped by more than the bound, on the first attempt. On a quiet machine the error is 0.4-4.1 ms here; CI,
  /// with other suites beside it, saw 10.6 ms once (the server's latency report moves with its scheduling).
  private func pauseRun(_ sweep: String, lastAttempt: Bool) async throws -> Bool {
    try await ExclusiveSink.run(stopping: controller) {
      let reference = try decodedLeft(sweep).samples
      let recorder = try MonitorRecorder()
      try await load([sweep])
      _ = try await settle(controller.play())
      try await Task.sleep(for: .milliseconds(700))
      let paused = try await settle(controller.pause())
      let pausedAt = MonitorRecorder.now()
      #expect(paused.status == .paused)
      try await Task.sleep(for: .milliseconds(400))
      _ = try await settle(controller.play())
      try await Task.sleep(for: .milliseconds(500))
      _ = try await settle(controller.stop())
      let recording = recorder.stop()
      let left = recording.left

      let start = try #require(recording.firstAudibleFrame())
      let silence = try #require(recording.firstSilentFrame(after: start, lasting: 2205), "no silence after pause")
      let silentAt = try #require(recording.time(ofFrame: silence))
      let delay = Double(Int64(silentAt) - Int64(pausedAt)) / 1e6
      #expect(delay <= 50, "silence reached the sink \(delay) ms after pause() resolved")

      // Continuity: the last frame before the pause and the first after the resume are neighbours in the file.
      let resumed = try #require(recording.firstAudibleFrame(after: silence))
      let before = Array(left[(silence - 4096)..<silence])
      let after = Array(left[resumed..<(resumed + 4096)])
      // Searched within half a second of the confirmed position, which must be within 10 ms of it.
      let confirmed = Int(paused.position.seconds * 44_100)
      let around = max(0, confirmed - 26_000)..<min(reference.count - 8192, confirmed + 22_050)
      let stopped: Double
      if PulseEnvironment.inexactRecording == nil {
        let lastBefore = locate(before, in: reference, range: around)
        let firstAfter = locate(after, in: reference, range: around)
        let gap = firstAfter.offset - (lastBefore.offset + 4096)
        if !(lastBefore.found && firstAfter.found && abs(gap) <= 44), PulseEnvironment.graphMayGlitch != nil,
          !lastAttempt
        {
          print("pauseSilencesTheSinkAndResumeContinuesWhereItStopped: not continuous on the first run; again")
          return true
        }
        #expect(lastBefore.found && firstAfter.found, "both sides are the file's own samples")
        #expect(abs(gap) <= 44, "lost (+) or repeated (−) \(gap) frames across pause/resume; at most 1 ms allowed")
        stopped = lastBefore.offset + 4096
      } else {
        // Resampled: the two sides, joined, are one piece of the file; 1 ms lost or repeated between them would
        // turn half of it by more than a radian at the sweep's 200-700 Hz.
        let joined = locate(before + after, in: reference, range: around)
        #expect(joined.found, "the audio after the resume continues the audio before the pause")
        stopped = joined.offset + 4096
      }
      let error = stopped / 44_100 - paused.position.seconds
      // Resampled (PipeWire at 48 kHz), the audio stops 4-10.5 ms before the confirmed position (44.1 kHz: -8 to
      // +2 ms): the latency the server reports leaves out its resampler's delay.
      let tolerance = PulseEnvironment.resampled == nil ? 0.01 : 0.015
      if abs(error) > tolerance, !lastAttempt {
        print("pauseSilencesTheSinkAndResumeContinuesWhereItStopped: \(error * 1000) ms on the first run; again")
        return true
      }
      #expect(
        abs(error) <= tolerance,
        "paused at \(paused.position.seconds) s; the audio stopped \(error * 1000) ms from it")
      return false
    }
  }

  @Test(
    .enabled(
      if: PulseEnvironment.monitorRewinds == nil,
      "the monitor of a rewinding sink keeps audio that a seek replaced: judged on the other servers"),
    arguments: try sweeps())
  func theFirstAudioAfterASeekIsTheFileAtTheTarget(sweep: String) async throws {
    _ = try await seekRun(sweep)
  }

  /// Nothing of the file just before the target precedes it: the new audio starts exactly at the target.
  /// Resampled, a tone's period leaves the start ambiguous by a few frames: judged at 44.1 kHz instead.
  @Test(
    .enabled(
      if: PulseEnvironment.inexactRecording == nil,
      "the first frame needs a monitor that records exactly: judged on the other servers"),
    arguments: try sweeps())
  func theFirstFrameAfterASeekIsTheTargetsOwn(sweep: String) async throws {
    let run = try await seekRun(sweep)
    let just = run.offset - 44
    let earlier = Array(run.reference[(run.targetFrame - 44)..<run.targetFrame])
    let precedes = locate(earlier, in: run.left, range: just..<(just + 1))
    #expect(!precedes.found, "audio from before the target (more than 1 ms early) reached the sink")
  }

  /// Plays `sweep`, seeks to 12.5 s while playing and checks that the content at the target reached the sink;
  /// returns the recording's left channel, the file's, the target's frame and where the content was found.
  private func seekRun(_ sweep: String) async throws -> (
    left: [Float], reference: [Float], targetFrame: Int, offset: Int
  ) {
    try await ExclusiveSink.run(stopping: controller) {
      let reference = try decodedLeft(sweep).samples
      let recorder = try MonitorRecorder()
      try await load([sweep])
      _ = try await settle(controller.play())
      try await Task.sleep(for: .milliseconds(500))
      let target = 12.5
      let sought = try await settle(controller.seek(to: target))
      #expect(sought.status == .playing)
      #expect(abs(sought.position.seconds - target) < 0.01)
      try await Task.sleep(for: .milliseconds(500))
      _ = try await settle(controller.stop())
      let recording = recorder.stop()
      let left = recording.left
      let targetFrame = Int(target * 44_100)
      let probe = Array(reference[targetFrame..<(targetFrame + 4096)])
      let found = locate(probe, in: left, range: 0..<(left.count - 4096))
      try #require(found.found, "the content at \(target) s reached the sink (\(left.count) frames recorded)")
      return (left, reference, targetFrame, Int(found.offset))
    }
  }

  @Test func rapidSeeksSettleEveryFutureAndEndAtTheLast() async throws {
    try await ExclusiveSink.run(stopping: controller) {
      try await load([Fixtures.sweepFLAC])
      _ = try await settle(controller.play())
      let futures = (1...20).map { controller.seek(to: Double($0)) }
      var outcomes: [Outcome<PlayerState, PlayerError>] = []
      for future in futures { outcomes.append(await future.settled) }
      #expect(outcomes.allSatisfy { $0.value != nil || $0.isCancelled })
      #expect(outcomes.last?.value != nil)
      let state = try await settle(controller.refresh())
      #expect(state.position.seconds >= 20 && state.position.seconds < 21)
      _ = try await settle(controller.stop())
    }
  }

  @Test func halfVolumeFollowsTheCubicCurve() async throws {
    try await ExclusiveSink.run(stopping: controller) {
      let recorder = try MonitorRecorder()
      try await load([Fixtures.sweepFLAC])
      _ = try await settle(controller.play())
      try await Task.sleep(for: .milliseconds(600))
      let full = MonitorRecorder.now()
      let state = try await settle(controller.setVolume(50))
      #expect(state.volume == 50)
      try await Task.sleep(for: .milliseconds(600))
      _ = try await settle(controller.stop())
      let recording = recorder.stop()
      func peak(between lower: UInt64, and upper: UInt64) -> Float {
        let frames = recording.arrivals.filter { $0.time > lower && $0.time < upper }.map(\.frame)
        guard let first = frames.first, let last = frames.last, last > first else { return 0 }
        return recording.left[first..<last].map { abs($0) }.max() ?? 0
      }
      let loud = peak(between: full - 300_000_000, and: full)
      let quiet = peak(between: full + 300_000_000, and: full + 550_000_000)
      let began = recording.firstAudibleFrame().flatMap(recording.time(ofFrame:)).map {
        "\((Double($0) - Double(full)) / 1e6) ms"
      }
      #expect(loud > 0.4, "the audio began at \(began ?? "no time") from the full-volume mark")
      // PulseAudio's 50 % is (0.5)³ of the amplitude. Peaks of a resampled recording fall between the samples
      // of the tone (0.1107 once on PipeWire at 48 kHz), so the bound is wider there.
      let tolerance = PulseEnvironment.resampled == nil ? 0.01 : 0.02
      #expect(abs(quiet / loud - 0.125) < Float(tolerance), "level ratio \(quiet / loud)")
    }
  }

  @Test func aVolumeChangedByAnotherProgramIsPublished() async throws {
    try await ExclusiveSink.run(stopping: controller) {
      let known = try PulseEnvironment.ownSinkInputIndices()
      _ = try await settle(controller.load([Fixtures.sweepFLAC]))
      _ = try await settle(controller.play())
      let index = try #require(try await PulseEnvironment.newSinkInput(notIn: known)?.index)
      let changed = try PulseEnvironment.run("/usr/bin/pactl", ["set-sink-input-volume", index, "30%"])
      #expect(changed.status == 0)
      let published = await published(by: controller, within: 3) { $0.volume == 30 }
      #expect(published?.volume == 30, "the external change is published as confirmed state")
      _ = try await settle(controller.stop())
    }
  }

  @Test func noServerFailsFastNamingTheAddress() async throws {
    let output = PulseOutput(configuration: .init(server: "unix:/nonexistent/splay-test-socket"))
    let lonely = PlayerController(output: output, decoders: StandardDecoderFactory())
    let started = MonitorRecorder.now()
    let outcome = await lonely.load([Fixtures.stereoFLAC]).settled
    #expect(MonitorRecorder.now() - started < 2_000_000_000)
    guard case .failure(.outputUnavailable(let server, _)) = outcome else {
      Issue.record("expected output-unavailable, got \(outcome)")
      return
    }
    #expect(server == "unix:/nonexistent/splay-test-socket")
  }
}

/// A seek is begun when it is asked for: cancelling its future stops the wait, not the seek, and the server's
/// confirmation then arrives as `confirmedLate`, so that the published state can follow the audio.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseSeekCancellationTests {
  @Test func aCancelledSeekStillMovesTheAudioAndIsConfirmedLate() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let events = OutputEventLog(listeningTo: output)
      let decoder = try SndfileDecoderFactory().open(Fixtures.sweepFLAC)
      _ = await output.open(decoder, at: 0, volume: 100).settled
      _ = await output.start().settled
      try await Task.sleep(for: .milliseconds(200))
      let seek = output.seek(to: 10)
      seek.cancel()
      let late = await events.first(within: 3) { $0.isConfirmedLate }
      guard case .confirmedLate(let confirmed) = late else {
        Issue.record("the seek's confirmation was not reported late within 3 s")
        return
      }
      #expect(abs(confirmed.position - 10) < 0.05 && confirmed.running)
      let now = try #require(await output.status().settled.value)
      #expect(now.position >= 10 && now.position < 11, "the audio moved to 10 s: \(now.position)")
      _ = await output.close().settled
    }
  }
}

/// Losing the server: every pending future fails with output-lost, `failed` is published, and `play` on a
/// server that came back resumes.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseServerLossTests {
  static let sandbox: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("scripts/pulse-sandbox").path
  }()

  @Test func killingTheServerFailsPendingCommandsAndPlayResumesWhenItIsBack() async throws {
    try await ExclusiveSink.run {
      let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())
      _ = await controller.load([Fixtures.sweepFLAC]).settled
      _ = await controller.play().settled
      try await Task.sleep(for: .milliseconds(300))
      // `stop` returns once the daemon has exited: from then on, the loss must be published within 1 s.
      _ = try PulseEnvironment.runDetached([Self.sandbox, "stop"])
      let killed = MonitorRecorder.now()
      let failed = await published(by: controller, within: 3) { $0.status.name == "failed" }
      let elapsed = Double(MonitorRecorder.now() - killed) / 1e9
      guard case .failed(let error) = failed?.status else {
        Issue.record("expected failed(output-lost), got \(String(describing: failed?.status))")
        _ = try PulseEnvironment.runDetached([Self.sandbox, "start"])
        return
      }
      #expect(error.code == "output-lost")
      #expect(elapsed < 1, "published \(elapsed) s after the server died")
      let pause = await controller.pause().settled
      #expect(pause.error?.code == "invalid-state" || pause.error?.code == "output-lost")
      #expect(try PulseEnvironment.runDetached([Self.sandbox, "start"]) == 0)
      let resumed = await controller.play().settled
      #expect(resumed.value?.status == .playing, "play reconnects and resumes: \(resumed)")
      _ = await controller.stop().settled
    }
  }
}

/// The first confirmed state of `controller` (the current one included) that satisfies `condition`, or nil
/// after `seconds`: ``RealTimeline``'s wait, which scripts use too.
func published(
  by controller: PlayerController, within seconds: Double, _ condition: @escaping @Sendable (PlayerState) -> Bool
) async -> PlayerState? {
  let result = await RealTimeline().wait(until: condition, timeout: seconds, controller: controller)
  return result.held ? result.state : nil
}

/// The state `future` confirms, or its error thrown (cancellation as `PlayerError.cancelled`).
func confirmed(_ future: Future<PlayerState, PlayerError>) async throws -> PlayerState {
  switch await future.settled {
  case .success(let state): return state
  case .failure(let error): throw error
  case .cancelled: throw PlayerError.cancelled
  }
}
