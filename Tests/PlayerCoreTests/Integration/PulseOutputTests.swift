import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import Testing

/// PulseOutput against the real (private, null-sink) server, judged by what reached the sink's monitor.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseOutputTests {
  let controller = PlayerController(output: PulseOutput())

  private func settle(_ future: Future<PlayerState, PlayerError>) async throws -> PlayerState {
    switch await future.settled {
    case .success(let state): return state
    case .failure(let error): throw error
    case .cancelled: throw PlayerError.cancelled
    }
  }

  private func waitForEnd(timeout: Double = 15) async -> PlayerState? {
    await published(by: controller, within: timeout) { $0.status == .ended }
  }

  @Test(arguments: ["ladder-44k-stereo.wav", "ladder-44k-stereo.flac"])
  func losslessFilesReachTheSinkSampleExactAtUnityGain(name: String) async throws {
    try await ExclusiveSink.run {
      let reference = try decodedLeft(Fixtures.media(name)).samples
      let recorder = try MonitorRecorder()
      _ = try await settle(controller.load([Fixtures.media(name)]))
      _ = try await settle(controller.play())
      let ended = await waitForEnd()
      let recording = recorder.stop()
      #expect(ended?.status == .ended)
      let left = recording.left
      let start = try #require(recording.firstAudibleFrame(), "no audio reached the sink")
      // The first audible sample may come a little after the file's first (quiet) samples: find the alignment.
      let match = SignalAnalysis.bestOffset(of: reference, in: left, range: max(0, start - 200)..<(start + 200))
      #expect(match.error < 1e-4, "the sink got other samples than the file's")
      let difference = SignalAnalysis.maximumDifference(left, offset: match.offset, reference: reference)
      #expect(difference < 1e-4, "the whole file, in order, nothing skipped or repeated (max difference \(difference))")
    }
  }

  @Test(arguments: [
    "ladder-44k-stereo.ogg", "ladder-44k-stereo.opus", "ladder-44k-stereo.mp3", "ladder-48k-mono.flac",
    "ladder-48k-mono.wav", "ladder-48k-mono.mp3",
  ])
  func everyFormatAndLayoutPlaysItsContentInOrder(name: String) async throws {
    try await ExclusiveSink.run {
      let recorder = try MonitorRecorder()
      _ = try await settle(controller.load([Fixtures.media(name)]))
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
    try await ExclusiveSink.run {
      let names = ["ladder-44k-stereo.flac", "short-44k-stereo.flac"]
      let reference = try names.flatMap { try decodedLeft(Fixtures.media($0)).samples }
      let changes = Locked<[PlayerState]>([])
      let observation = controller.observe { state in
        if state.index == 1 { changes.withLock { $0.append(state) } }
      }
      defer { observation.cancel() }
      let recorder = try MonitorRecorder()
      _ = try await settle(controller.load(names.map(Fixtures.media)))
      _ = try await settle(controller.play())
      let ended = await waitForEnd()
      let recording = recorder.stop()
      #expect(ended?.status == .ended)
      #expect(ended?.index == 1)
      let left = recording.left
      let start = try #require(recording.firstAudibleFrame(), "no audio reached the sink")
      let match = SignalAnalysis.bestOffset(of: reference, in: left, range: max(0, start - 200)..<(start + 200))
      #expect(match.error < 1e-4, "the sink got other samples than the first file's")
      let difference = SignalAnalysis.maximumDifference(left, offset: match.offset, reference: reference)
      #expect(
        difference < 1e-4, "both files back to back, no gap, nothing lost or repeated (max difference \(difference))")
      // The change of track was confirmed while playing, from the boundary on, before the end.
      let first = try #require(changes.withLock { $0.first }, "the second track was never published")
      #expect(first.status == .playing)
      #expect(first.track?.path == Fixtures.media(names[1]))
      #expect(first.position.seconds < 0.1, "published within 100 ms of the boundary: \(first.position.seconds)")
    }
  }

  @Test func aSeekBackIntoATrackWhoseSuccessorWasDecodedStillPlaysTheSuccessorFromItsStart() async throws {
    try await ExclusiveSink.run {
      let names = ["ladder-44k-stereo.flac", "short-44k-stereo.flac"]
      let first = try decodedLeft(Fixtures.media(names[0])).samples
      let second = try decodedLeft(Fixtures.media(names[1])).samples
      let recorder = try MonitorRecorder()
      _ = try await settle(controller.load(names.map(Fixtures.media)))
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
      let found = SignalAnalysis.bestOffset(
        of: probe, in: left, range: (start + 44_100)..<(left.count - 4096), length: 4096)
      #expect(found.error < 1e-4, "the audio at \(target) s came back after the seek")
      let difference = SignalAnalysis.maximumDifference(left, offset: found.offset, reference: expected)
      #expect(
        difference < 1e-4, "the rest of the first track, then the whole second one (max difference \(difference))")
    }
  }

  @Test func pauseSilencesTheSinkAndResumeContinuesWhereItStopped() async throws {
    try await ExclusiveSink.run {
      let reference = try decodedLeft(Fixtures.sweepFLAC).samples
      let recorder = try MonitorRecorder()
      _ = try await settle(controller.load([Fixtures.sweepFLAC]))
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
      let lastBefore = SignalAnalysis.bestOffset(
        of: before, in: reference, range: 0..<(reference.count - 4096), length: 4096)
      let firstAfter = SignalAnalysis.bestOffset(
        of: after, in: reference, range: 0..<(reference.count - 4096), length: 4096)
      #expect(lastBefore.error < 1e-3 && firstAfter.error < 1e-3, "both sides are the file's own samples")
      let gap = firstAfter.offset - (lastBefore.offset + 4096)
      #expect(abs(gap) <= 44, "lost (+) or repeated (−) \(gap) frames across pause/resume; at most 1 ms allowed")
      #expect(abs(Double(lastBefore.offset + 4096) / 44_100 - paused.position.seconds) < 0.25)
    }
  }

  @Test func theFirstAudioAfterASeekIsTheFileAtTheTarget() async throws {
    try await ExclusiveSink.run {
      let reference = try decodedLeft(Fixtures.sweepFLAC).samples
      let recorder = try MonitorRecorder()
      _ = try await settle(controller.load([Fixtures.sweepFLAC]))
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
      let found = SignalAnalysis.bestOffset(of: probe, in: left, range: 0..<(left.count - 4096), length: 4096)
      #expect(found.error < 1e-3, "the content at \(target) s reached the sink")
      // Nothing of the file just before the target precedes it: the new audio starts exactly at the target.
      let earlier = Array(reference[(targetFrame - 44)..<targetFrame])
      let precedes = SignalAnalysis.maximumDifference(left, offset: found.offset - 44, reference: earlier)
      #expect(precedes > 1e-3, "audio from before the target (more than 1 ms early) reached the sink")
    }
  }

  @Test func rapidSeeksSettleEveryFutureAndEndAtTheLast() async throws {
    try await ExclusiveSink.run {
      _ = try await settle(controller.load([Fixtures.sweepFLAC]))
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
    try await ExclusiveSink.run {
      let recorder = try MonitorRecorder()
      _ = try await settle(controller.load([Fixtures.sweepFLAC]))
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
      #expect(loud > 0.4)
      // PulseAudio's 50 % is (0.5)³ of the amplitude.
      #expect(abs(quiet / loud - 0.125) < 0.01, "level ratio \(quiet / loud)")
    }
  }

  @Test func aVolumeChangedByAnotherProgramIsPublished() async throws {
    try await ExclusiveSink.run {
      _ = try await settle(controller.load([Fixtures.sweepFLAC]))
      _ = try await settle(controller.play())
      let list = try PulseEnvironment.run("/usr/bin/pactl", ["list", "short", "sink-inputs"])
      let index = try #require(list.stdout.split(separator: "\t").first.map(String.init))
      let changed = try PulseEnvironment.run("/usr/bin/pactl", ["set-sink-input-volume", index, "30%"])
      #expect(changed.status == 0)
      let published = await published(by: controller, within: 3) { $0.volume == 30 }
      #expect(published?.volume == 30, "the external change is published as confirmed state")
      _ = try await settle(controller.stop())
    }
  }

  @Test func noServerFailsFastNamingTheAddress() async throws {
    let output = PulseOutput(configuration: .init(server: "unix:/nonexistent/splay-test-socket"))
    let lonely = PlayerController(output: output)
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
      let controller = PlayerController(output: PulseOutput())
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
