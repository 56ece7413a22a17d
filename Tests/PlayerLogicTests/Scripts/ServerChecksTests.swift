import Futures
import PlayerCore
import PlayerScripts
import PlayerTestSupport
import Testing

/// A script's server checks through a probe: `expect audio` hands the probe where the audio should have begun,
/// a verdict that is not judged is never a pass or a failure, and `state-matches-server` fails the line during
/// which the server stopped agreeing, with both values. On the simulated output there is no probe: both are
/// said to be not judged.
@Suite struct ServerChecksTests {
  /// A probe that answers what the test says and remembers what it was asked.
  final class StubProbe: ScriptServerProbe {
    let verdict: AudioVerdict
    let reading: Lock<ServerStream?>
    let asked = Lock<[(AudioCheck, Double)]>([])
    let started = Lock(false)

    init(verdict: AudioVerdict = .heard("fine"), reading: ServerStream? = nil) {
      self.verdict = verdict
      self.reading = Lock(reading)
    }

    func start() async { started.withLock { $0 = true } }
    func stop() async {}
    func judge(_ check: AudioCheck, from: Double, state: @escaping @Sendable () -> PlayerState) async -> AudioVerdict {
      asked.withLock { $0.append((check, from)) }
      return verdict
    }
    func stream() async -> Result<ServerStream?, ServerProbeFailure> { .success(reading.withLock { $0 }) }
  }

  private func run(_ text: String, probe: StubProbe?) async throws -> (
    failure: ScriptRunner.Failure?, notes: [String], outcomes: [ScriptStepOutcome]
  ) {
    let harness = Harness()
    let notes = Locked<[String]>([])
    let runner = ScriptRunner(
      controller: harness.controller, timeline: harness.timeline,
      onNote: { note in notes.withLock { $0.append(note) } }, probe: probe)
    var outcomes: [ScriptStepOutcome] = []
    let failure = await runner.run(try ScriptParser.parse(text, name: "t.splay"), onStep: { outcomes.append($0) })
    return (failure, notes.withLock { $0 }, outcomes)
  }

  @Test func anAudioCheckIsGivenWhereTheLastRepositioningCommandLeftTheAudio() async throws {
    let probe = StubProbe()
    let (failure, notes, _) = try await run(
      """
      load long.flac
      play
      wait 1
      expect audio playing
      seek 12
      wait 1
      pause
      play
      expect audio playing
      expect audio playing 5 ± 2ms
      """, probe: probe)
    #expect(failure == nil, "\(String(describing: failure))")
    #expect(probe.started.withLock { $0 })
    let asked = probe.asked.withLock { $0 }
    // A play that resumes a pause does not move where the audio began.
    #expect(asked.map(\.1) == [0, 12, 12])
    #expect(asked.last?.0 == .playing(from: 5, tolerance: 0.002))
    #expect(notes.first == "t.splay:4: expect audio playing: fine")
  }

  @Test func aWrongAudioFailsItsLine() async throws {
    let (failure, _, _) = try await run(
      "load long.flac\nplay\nexpect audio playing 0", probe: StubProbe(verdict: .wrong("the sink played nothing")))
    #expect(failure?.description == "t.splay:3: expect audio: the sink played nothing")
  }

  @Test func anAudioCheckNotJudgedIsNeitherPassedNorFailed() async throws {
    let (failure, notes, outcomes) = try await run(
      "load long.flac\nplay\nexpect audio silent", probe: StubProbe(verdict: .notJudged("a resampled sink")))
    #expect(failure == nil)
    #expect(notes == ["t.splay:3: expect audio silent: not judged: a resampled sink"])
    #expect(outcomes.last?.notJudged == "a resampled sink")
    var report = ScriptReport(script: try ScriptParser.parse("expect audio silent", name: "t.splay"))
    report.record(outcomes[2])
    #expect(report.tapLine(outcomes[2], number: 1).contains("# SKIP not judged: a resampled sink"))
    #expect(report.junit.contains("<skipped message=\"not judged: a resampled sink\"/>"))
    #expect(report.junit.contains("skipped=\"1\""))
  }

  @Test func withoutAServerTheChecksAreSaidNotJudged() async throws {
    let (failure, notes, _) = try await run(
      "check always state-matches-server\nload long.flac\nplay\nexpect audio playing", probe: nil)
    #expect(failure == nil)
    #expect(
      notes == [
        "t.splay: check always state-matches-server: not judged: the simulated output has no server to read",
        "t.splay:4: expect audio playing: not judged: the simulated output has no server to read",
      ])
  }

  @Test func aServerThatDisagreesFailsTheLineWithBothValues() async throws {
    let probe = StubProbe(reading: nil)
    let (failure, _, _) = try await run(
      "check always state-matches-server\nload long.flac\nplay", probe: probe)
    #expect(failure?.line == 3)
    #expect(failure?.message.hasPrefix("state-matches-server: the state is playing, the server has no stream") == true)
  }

  @Test(arguments: [
    (PlaybackStatus.playing, ServerStream(volume: 100, muted: false, corked: false, sink: "s"), nil as String?),
    (.playing, ServerStream(volume: 100, muted: false, corked: true, sink: "s"), "the server has the stream corked"),
    (.paused, ServerStream(volume: 100, muted: false, corked: false, sink: "s"), "plays the stream uncorked"),
    (
      .paused, ServerStream(volume: 70, muted: false, corked: true, sink: "s"),
      "volume 100 %, the server plays the stream at 70 %"
    ),
    (.playing, ServerStream(volume: 100, muted: true, corked: false, sink: "s"), "the server has the stream muted"),
    (
      .playing, ServerStream(volume: 100, muted: false, corked: false, sink: "t"),
      "sink s, the server plays the stream to t"
    ),
    (.ended, ServerStream(volume: 100, muted: false, corked: false, sink: "s"), nil),
  ])
  func theStateAndTheServerAgreeOnEveryField(status: PlaybackStatus, stream: ServerStream, mismatch: String?) {
    var state = PlayerState(status: status, volume: 100, device: "s")
    state.muted = false
    let found = ServerStreamMatch.mismatch(state, stream)
    if let mismatch {
      #expect(found?.contains(mismatch) == true, "\(String(describing: found))")
    } else {
      #expect(found == nil)
    }
    #expect(ServerStreamMatch.mismatch(PlayerState(status: .idle), nil) == nil)
  }
}
