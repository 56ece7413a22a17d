import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import PlayerScripts
import PlayerTestSupport
import Testing

/// Script triggers on the real server: `at` acts once the sink has played to its time (judged in the recording
/// of the sink), `on` once the server confirmed the event, and each says how late it was.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseScriptTriggerTests {
  /// Runs `text` on a PulseOutput controller in real time; returns the failure and the trigger notes.
  private func run(
    _ text: String, decoders: any AudioDecoderFactory = StandardDecoderFactory()
  ) async throws -> (failure: ScriptRunner.Failure?, notes: [String]) {
    let underflows = EventCounter()
    var configuration = ControllerConfiguration()
    configuration.onUnderflow = underflows.increment
    let controller = PlayerController(output: PulseOutput(), decoders: decoders, configuration: configuration)
    let notes = Locked<[String]>([])
    let runner = ScriptRunner(
      controller: controller, timeline: RealTimeline(), onNote: { note in notes.withLock { $0.append(note) } },
      underflows: { underflows.value })
    let failure = await runner.run(try ScriptParser.parse(text, name: "t.splay"))
    _ = await controller.shutdown().settled
    return (failure, notes.withLock { $0 })
  }

  /// The milliseconds a note says its trigger was late by (`…, 0.9 ms late`).
  private func lateness(_ note: String) -> Double? {
    guard note.hasSuffix(" ms late"), let number = note.dropLast(8).split(separator: " ").last else { return nil }
    return Double(number)
  }

  /// Where `probe` starts in `signal`: sample for sample where the monitor records exactly, else by
  /// cross-correlation.
  private func locate(_ probe: [Float], in signal: [Float]) -> (offset: Double, found: Bool) {
    let range = 0..<max(0, signal.count - probe.count)
    guard PulseEnvironment.inexactRecording != nil else {
      let match = SignalAnalysis.bestOffset(of: probe, in: signal, range: range, length: probe.count)
      return (Double(match.offset), match.error < 1e-3)
    }
    let match = SignalAnalysis.correlate(probe, in: signal, range: range)
    return (match.offset, match.correlation > 0.95)
  }

  /// `at 1.5 seek 20`: the sink heard the file up to 1.5 s (not less, and within 50 ms more), then 20 s on. Run
  /// alone in `make test` (TIMED in the Makefile): punctuality cannot be judged while 600 tests share two cores.
  @Test(
    .enabled(
      if: PulseEnvironment.monitorRewinds == nil,
      "the monitor of a rewinding sink keeps audio that a seek replaced: judged on the other servers"))
  func anAtLineActsOnceTheSinkHasPlayedToItsTime() async throws {
    try await ExclusiveSink.run {
      let reference = try decodedLeft(Fixtures.sweepFLAC).samples
      let recorder = try MonitorRecorder()
      let (failure, notes) = try await run(
        """
        check always position-advances
        check always no-underrun
        load "\(Fixtures.sweepFLAC)"
        volume 100
        play
        at 1.5 seek 20
        wait 0.5
        stop
        """)
      let left = recorder.stop().left
      #expect(failure == nil, "\(String(describing: failure))")
      let late = try #require(notes.first.flatMap(lateness), "\(notes)")
      #expect(late >= 0 && late <= 20, "the confirmed position was \(late) ms past 1.5 s when the seek went out")
      // From 1 s of the file (past its quiet start) to the jump, and the file's 20 s after it.
      let second = locate(Array(reference[44_100..<48_196]), in: left)
      let target = locate(Array(reference[882_000..<886_096]), in: left)
      try #require(second.found && target.found, "the file's 1 s and 20 s reached the sink")
      let heard = 1 + (target.offset - second.offset) / 44_100
      #expect(heard >= 1.5 - 0.002, "the seek cut the audio at \(heard) s of the file, before 1.5 s")
      #expect(heard <= 1.5 + 0.05, "the seek cut the audio at \(heard) s of the file")
    }
  }

  /// A track played to its end is no underrun, on any server: plain PulseAudio and PipeWire report the server
  /// running out of audio once the last frame played, which lost nothing.
  @Test func aTrackPlayedToItsEndIsNoUnderrun() async throws {
    try await ExclusiveSink.run {
      let (failure, _) = try await run(
        """
        check always no-underrun
        load "\(Fixtures.media("short-44k-stereo.flac"))"
        play
        wait until ended timeout 10
        wait 0.5
        expect state ended
        """)
      #expect(failure == nil, "\(String(describing: failure))")
    }
  }

  /// A decoder that stops for 5 s a second into the track starves the server: that underrun is caught (plain
  /// PulseAudio may start the track up to 2 s late, behind the block its sink rendered before).
  @Test func aDecoderThatStallsIsCaughtAsAnUnderrun() async throws {
    try await ExclusiveSink.run {
      let (failure, _) = try await run(
        """
        check always no-underrun
        load stalling.flac
        play
        wait 4
        stop
        """, decoders: StallingDecoders())
      #expect(failure?.message.contains("check always no-underrun: the server ran out of audio") == true)
    }
  }

  /// `on track 2` acts once the server confirmed track 2 (its first frame played); `wait until position`
  /// returns once the confirmed position is there.
  @Test func onTrackAndWaitUntilPositionFollowTheServersClock() async throws {
    try await ExclusiveSink.run {
      let (failure, notes) = try await run(
        """
        check always position-advances
        load "\(Fixtures.media("short-44k-stereo.flac"))" "\(Fixtures.media("ladder-44k-stereo.flac"))"
        play
        on track 2 pause
        expect track 2
        expect state paused
        expect position 0 ± 0.05
        play
        wait until position >= 0.5
        expect position 0.5 ± 0.05
        on ended jump 1
        expect track 1
        """)
      #expect(failure == nil, "\(String(describing: failure))")
      let late = try #require(notes.first.flatMap(lateness), "\(notes)")
      #expect(late >= 0 && late <= 20, "\(notes)")
    }
  }
}

/// Opens fake decoders whose reads stop once for 5 s when they reach a second of the track.
private struct StallingDecoders: AudioDecoderFactory {
  func open(_ path: String) throws(PlayerError) -> any AudioDecoder { Stalling(inner: FakeDecoder(path: path)) }

  private final class Stalling: AudioDecoder {
    let inner: FakeDecoder
    private let stalled = Locked(false)
    init(inner: FakeDecoder) { self.inner = inner }
    var info: TrackInfo { inner.info }

    func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
      if inner.framesRead >= Int64(inner.info.sampleRate), !stalled.withLock({ $0 }) {
        stalled.withLock { $0 = true }
        usleep(5_000_000)
      }
      return try inner.read(into: buffer, frames: frames)
    }

    func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 { try inner.seek(toFrame: frame) }
  }
}
