import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import PlayerScripts
import PlayerTestSupport
import ScriptProbes
import Testing

/// `expect audio` and `check always state-matches-server` on the real server: an honest run is heard sample for
/// sample from each place it was sent, and a player that seeks 10 ms off or drops 5 ms of a track is caught,
/// each by the samples the sink played. Where the monitor cannot judge (a rewinding PulseAudio sink) the checks
/// say so and are not passed.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseScriptAudioTests {
  /// A 6-second chirp at the sink's own rate (so that nothing resamples it): no stretch of it repeats.
  private static func chirp() async throws -> (path: String, rate: Int) {
    let facts = try await PulseProbe(server: nil).facts(sink: PulseEnvironment.sink).settled.get()
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "splay-chirp-\(facts.rate)-\(getpid()).wav"
    ).path
    let rate = Double(facts.rate)
    try StereoWAV.write(frames: 6 * facts.rate, rate: facts.rate, to: path) { frame in
      let t = Double(frame) / rate
      return 0.5 * sin(2 * Double.pi * (200 * t + 300 * t * t))
    }
    return (path, facts.rate)
  }

  /// Runs `text` (`$FILE` the chirp) on a controller whose tracks open through `decoders`, judged by a probe that
  /// decodes them honestly.
  private func run(_ text: String, decoders: any AudioDecoderFactory = StandardDecoderFactory()) async throws -> (
    failure: ScriptRunner.Failure?, notes: [String]
  ) {
    try await ExclusiveSink.run {
      let (path, _) = try await Self.chirp()
      defer { try? FileManager.default.removeItem(atPath: path) }
      let output = PulseOutput()
      let controller = PlayerController(output: output, decoders: decoders)
      let notes = Locked<[String]>([])
      let probe = PulseScriptProbe(
        output: output, server: nil, sink: PulseEnvironment.sink, decoders: StandardDecoderFactory())
      let runner = ScriptRunner(
        controller: controller, timeline: RealTimeline(), onNote: { note in notes.withLock { $0.append(note) } },
        probe: probe)
      let script = try ScriptParser.parse(text, name: "t.splay", variables: ScriptVariables(["FILE": path]))
      let failure = await runner.run(script)
      _ = await controller.shutdown().settled
      return (failure, notes.withLock { $0 })
    }
  }

  @Test func anHonestRunIsHeardSampleForSampleFromEachPlaceItWasSent() async throws {
    let (failure, notes) = try await run(
      """
      check always state-matches-server
      load $FILE
      play
      wait 0.5
      expect audio playing 0
      seek 2.5
      expect audio playing 2.5 ± 0.5ms
      pause
      wait 0.2
      expect audio silent
      play
      volume 60
      wait 0.4
      expect audio playing
      mute
      wait 0.2
      expect audio silent
      unmute
      seek 4
      wait 0.3
      expect audio playing 4
      """)
    #expect(failure == nil, "\(String(describing: failure))")
    let audio = notes.filter { $0.contains("expect audio playing") }
    #expect(audio.count == 4, "\(notes)")
    if let rewinds = PulseEnvironment.monitorRewinds ?? PulseEnvironment.truthFile.map({ _ in "truth sink" }) {
      #expect(audio.allSatisfy { $0.contains("not judged") && $0.contains("may rewind") }, "\(rewinds): \(notes)")
    } else {
      #expect(audio.allSatisfy { $0.contains("sample for sample") }, "\(notes)")
      #expect(audio[1].contains("from 2.5 s"))
    }
    #expect(notes.filter { $0.hasSuffix("expect audio silent: the sink was silent") }.count == 2, "\(notes)")
  }

  /// Runs `text` on a player whose tracks open through `faulty`; returns the failure the audio check found, or
  /// nil where the sink cannot judge, which the run must then say (it is not passed).
  private func caught(_ text: String, by faulty: FaultyDecoders, fault: String) async throws -> ScriptRunner.Failure? {
    let (failure, notes) = try await run(text, decoders: faulty)
    if PulseEnvironment.monitorRewinds != nil || PulseEnvironment.truthFile != nil {
      #expect(failure == nil && notes.last?.contains("not judged") == true, "\(notes)")
      return nil
    }
    let found: ScriptRunner.Failure = try #require(failure, "\(fault) passed: \(notes)")
    return found
  }

  @Test func aSeekThatLands10MillisecondsOffIsCaught() async throws {
    let wrong = FaultyDecoders { SeekingOff(inner: $0, frames: $0.info.sampleRate / 100) }
    let text = "load $FILE\nplay\nwait 0.3\nseek 2\nwait 0.3\nexpect audio playing 2"
    guard let failure = try await caught(text, by: wrong, fault: "the wrong seek") else { return }
    #expect(failure.line == 6)
    #expect(failure.message.contains("not from 2 s (+10.0 ms)"), "\(failure.message)")
  }

  @Test func aDropoutOf5MillisecondsIsCaught() async throws {
    let dropping = FaultyDecoders { Dropping(inner: $0, at: $0.info.sampleRate / 2, frames: $0.info.sampleRate / 200) }
    let text = "load $FILE\nplay\nwait 1\nexpect audio playing 0"
    guard let failure = try await caught(text, by: dropping, fault: "the dropout") else { return }
    #expect(failure.message.contains("skipping 5.0 ms"), "\(failure.message)")
    #expect(failure.message.contains("from 0.505 s"), "\(failure.message)")
  }

  @Test func aPlayerThatGoesSilentWhileItSaysItPlaysIsCaught() async throws {
    let silencing = FaultyDecoders { Silencing(inner: $0, after: $0.info.sampleRate / 2) }
    let text = "load $FILE\nplay\nwait 1.5\nexpect audio playing 0"
    guard let failure = try await caught(text, by: silencing, fault: "the silence") else { return }
    #expect(failure.message.contains("the sink has not played the track for the last"), "\(failure.message)")
  }
}

/// An honest decoder's reads and seeks, counting the frame the next read starts at: what a fault overrides.
private class Wrapped: AudioDecoder, @unchecked Sendable {
  let inner: any AudioDecoder
  var position = 0

  init(inner: any AudioDecoder) {
    self.inner = inner
  }

  var info: TrackInfo { inner.info }

  func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    let got = try inner.read(into: buffer, frames: frames)
    position += got
    return got
  }

  func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    let landed = try inner.seek(toFrame: frame)
    position = Int(landed)
    return landed
  }
}

/// A decoder that decodes silence from frame `after` on: a player whose audio stops while its clock goes on.
private final class Silencing: Wrapped, @unchecked Sendable {
  let after: Int

  init(inner: any AudioDecoder, after: Int) {
    self.after = after
    super.init(inner: inner)
  }

  override func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    let from = position
    let got = try super.read(into: buffer, frames: frames)
    let channels = max(1, info.channels)
    for frame in 0..<got where from + frame >= after {
      for channel in 0..<channels { buffer[frame * channels + channel] = 0 }
    }
    return got
  }
}

/// A decoder whose seeks land `frames` after where they were asked to, while saying they landed there.
private final class SeekingOff: Wrapped, @unchecked Sendable {
  let frames: Int

  init(inner: any AudioDecoder, frames: Int) {
    self.frames = frames
    super.init(inner: inner)
  }

  override func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    _ = try super.seek(toFrame: frame == 0 ? 0 : frame + Int64(frames))
    return frame
  }
}

/// A decoder that leaves out `frames` frames once it has read up to frame `at`.
private final class Dropping: Wrapped, @unchecked Sendable {
  let at: Int
  let frames: Int
  private var dropped = false

  init(inner: any AudioDecoder, at: Int, frames: Int) {
    self.at = at
    self.frames = frames
    super.init(inner: inner)
  }

  override func read(into buffer: UnsafeMutableBufferPointer<Float>, frames wanted: Int) throws(PlayerError) -> Int {
    if !dropped, position >= at {
      dropped = true
      let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames * max(1, info.channels))
      defer { scratch.deallocate() }
      _ = try inner.read(into: scratch, frames: frames)
    }
    return try super.read(into: buffer, frames: dropped ? wanted : min(wanted, at - position))
  }
}

/// Opens tracks honestly, then hands each decoder to `wrap`: a player with a fault.
private struct FaultyDecoders: AudioDecoderFactory {
  let wrap: @Sendable (any AudioDecoder) -> any AudioDecoder

  func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
    wrap(try StandardDecoderFactory().open(path))
  }
}
