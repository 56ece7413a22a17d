import Futures
import PlayerCore
import PlayerPulse
import PlayerScripts

#if canImport(Glibc)
  import Glibc
#endif

/// Judges a script's server checks on a PulseAudio (or PipeWire-pulse) server, over a connection of its own:
/// `expect audio` by recording the sink's monitor and finding the track's own samples in it (``HeardAudio``),
/// `check always state-matches-server` by reading splay's sink input.
public final class PulseScriptProbe: ScriptServerProbe {
  private let output: PulseOutput
  private let probe: PulseProbe
  private let sink: String?
  private let decoders: any AudioDecoderFactory

  private struct Listening {
    var facts: PulseProbe.SinkFacts?
    var tap: MonitorTap?
    /// Why the sink cannot be listened to, when it cannot.
    var failure: String?
  }
  private let listening = Lock(Listening())

  /// How long a check listens before it judges, in seconds: the audio of the state it is given reaches the
  /// sink's monitor within it.
  static let listen = 0.3

  /// A probe of the server `output` plays to (`server`, nil for the default), listening to `sink` (nil: the
  /// server's default sink); tracks are decoded again with `decoders`, as the player decodes them.
  public init(output: PulseOutput, server: String?, sink: String?, decoders: any AudioDecoderFactory) {
    self.output = output
    self.sink = sink
    self.decoders = decoders
    probe = PulseProbe(server: server)
  }

  /// Starts recording the sink's monitor.
  public func start() async {
    let read = await Self.answer(probe.facts(sink: sink))
    guard case .success(let facts) = read else {
      var reason = "no answer"
      if case .failure(let error) = read { reason = "\(error.code): \(error.message)" }
      return listening.withLock { $0.failure = "cannot read the server (\(reason))" }
    }
    let tap = await Self.answer(probe.record(facts))
    listening.withLock { listening in
      listening.facts = facts
      switch tap {
      case .success(let tap): listening.tap = tap
      case .failure(let error): listening.failure = "cannot record \(facts.monitor) (\(error.message))"
      case .cancelled: listening.failure = "cannot record \(facts.monitor) (no answer)"
      }
    }
  }

  /// Stops recording.
  public func stop() async {
    let tap = listening.withLock { listening in
      defer { listening.tap = nil }
      return listening.tap
    }
    tap?.stop()
  }

  /// splay's sink input as the server reports it.
  public func stream() async -> Result<ServerStream?, ServerProbeFailure> {
    guard let index = output.sinkInputIndex else { return .success(nil) }
    switch await Self.answer(probe.sinkInput(index)) {
    case .success(let input):
      return .success(
        input.map { ServerStream(volume: $0.volume, muted: $0.muted, corked: $0.corked, sink: $0.sink) })
    case .failure(let error): return .failure(ServerProbeFailure(error.message))
    case .cancelled: return .failure(ServerProbeFailure("cancelled"))
    }
  }

  /// Listens for ``listen`` seconds, then judges `check` against the recording.
  public func judge(
    _ check: AudioCheck, from: Double, state current: @escaping @Sendable () -> PlayerState
  ) async -> AudioVerdict {
    let (facts, tap, failure) = listening.withLock { ($0.facts, $0.tap, $0.failure) }
    guard let facts, let tap else { return .notJudged(failure ?? "the sink is not recorded") }
    let fresh = await listen(to: tap)
    // The state once listened: a track may have ended meanwhile.
    let state = current()
    if let device = state.device, device != facts.sink {
      return .notJudged("the stream plays to \(device), the recording is of \(facts.sink)")
    }
    if let stopped = tap.failure { return .notJudged(stopped) }
    let recorded = tap.recording
    switch check {
    case .silent:
      guard fresh > 0 else {
        // A sink with nothing to play may stop rendering (PipeWire suspends it), and its monitor with it.
        guard case .success(true) = await Self.answer(probe.isSuspended(facts.sink)) else {
          return .notJudged("the monitor of \(facts.sink) delivered nothing for \(formatSeconds(2 * Self.listen)) s")
        }
        return .heard("the sink was suspended")
      }
      let window = recorded.suffix(min(fresh, Int(0.2 * Double(tap.rate))))
      let peak = window.reduce(Float(0)) { max($0, abs($1)) }
      guard peak > HeardAudio.silence else { return .heard("the sink was silent") }
      let decibels = (20 * log10(Double(peak)) * 10).rounded() / 10
      return .wrong("the sink played sound in the last 0.2 s (peak \(decibels) dBFS)")
    case .playing(let named, let tolerance):
      return await playing(
        from: named ?? from, tolerance: tolerance, state: state, facts: facts, recorded: recorded,
        trimmed: tap.trimmed)
    }
  }

  private func playing(
    from: Double, tolerance: Double, state: PlayerState, facts: PulseProbe.SinkFacts, recorded: [Float],
    trimmed: Bool
  ) async -> AudioVerdict {
    if facts.rewinds {
      return .notJudged(
        "\(facts.sink) on \(facts.serverName) may rewind, and its monitor keeps audio that a rewind replaced")
    }
    guard let track = state.track else { return .wrong("no track is loaded") }
    if track.isLive { return .notJudged("a live stream has no file to compare the sink's audio with") }
    guard track.sampleRate == facts.rate else {
      return .notJudged(
        "the sink runs at \(facts.rate) Hz: the \(track.sampleRate) Hz track is resampled, so its samples "
          + "cannot be found as they are")
    }
    if state.muted { return .wrong("the stream is muted") }
    let now = Self.now()
    let estimate = state.position.estimated(at: now, limit: track.duration)
    let rate = Double(track.sampleRate)
    let start = max(0, min(from - tolerance, estimate) - 2)
    let end = min(track.duration, estimate + 2)
    let reference: (first: Int, samples: [Float])
    do throws(PlayerError) {
      reference = try Self.decode(track.path, with: decoders, from: start, to: end, rate: track.sampleRate)
    } catch {
      return .notJudged("cannot decode \(track.path) again (\(error.message))")
    }
    let gain = Float(pow(Double(state.volume) / 100, 3))
    let trail = HeardAudio(
      recorded: recorded, reference: reference.samples, referenceStart: reference.first, gain: gain
    ).trail()
    guard case .heard(_, let heardTo, _, _, let reachedRecordingStart, _, let tail) = trail else {
      return trail.verdict(from: from, tolerance: tolerance, rate: track.sampleRate)
    }
    // The audio heard last must be now's: a sink that stopped playing the track, or plays it elsewhere than
    // the state says, fails whatever it played before.
    if state.status == .playing, estimate < track.duration - Self.stale, Double(tail) > Self.stale * rate {
      return .wrong(
        "the sink has not played the track for the last \(formatSeconds(Double(tail) / rate)) s, while the state "
          + "says playing")
    }
    if abs(Double(heardTo) / rate - estimate) > Self.drift {
      return .wrong(
        "the sink played the track up to \(formatSeconds(Double(heardTo) / rate)) s, the state says "
          + "\(formatSeconds(estimate)) s")
    }
    let verdict = trail.verdict(from: from, tolerance: tolerance, rate: track.sampleRate)
    if case .wrong = verdict, reachedRecordingStart, trimmed {
      return .notJudged("the track played without a break for longer than the recording keeps")
    }
    return verdict
  }

  /// How long the sink may have played something else than the track while the state says playing, in seconds:
  /// the monitor's last block may not be the track's yet.
  static let stale = 0.05
  /// How far the audio heard last may be from where the state says the track is, in seconds.
  static let drift = 0.25

  /// What `future` settled with, or a timeout after 2 s: a server that went mid-query never answers.
  private static func answer<T: Sendable>(_ future: Future<T, PlayerError>) async -> Outcome<T, PlayerError> {
    await future.timeout(.seconds(2), error: .timeout(command: "reading the server", seconds: 2)).settled
  }

  /// Waits until the monitor has delivered ``listen`` seconds more, or ``listen`` seconds passed twice over (a
  /// suspended sink delivers nothing); returns how many frames arrived.
  private func listen(to tap: MonitorTap) async -> Int {
    let start = tap.framesRecorded
    let goal = start + Int(Self.listen * Double(tap.rate))
    let deadline = Self.now() + UInt64(2 * Self.listen * 1e9)
    while tap.framesRecorded < goal, Self.now() < deadline {
      try? await Task.sleep(for: .milliseconds(10))
    }
    return tap.framesRecorded - start
  }

  /// The first channel of `path` from `start` to `end` seconds, decoded as the player decodes it, and the frame
  /// it begins at (where the decoder's seek landed).
  static func decode(
    _ path: String, with decoders: any AudioDecoderFactory, from start: Double, to end: Double, rate: Int
  ) throws(PlayerError) -> (first: Int, samples: [Float]) {
    let decoder = try decoders.open(path)
    let channels = max(1, decoder.info.channels)
    let first = Int(try decoder.seek(toFrame: Int64((start * Double(rate)).rounded())))
    var wanted = max(0, Int((end * Double(rate)).rounded()) - first)
    var samples: [Float] = []
    samples.reserveCapacity(wanted)
    var buffer = [Float](repeating: 0, count: 4096 * channels)
    while wanted > 0 {
      let asked = min(4096, wanted)
      let got = try buffer.withUnsafeMutableBufferPointer { pointer throws(PlayerError) in
        try decoder.read(into: pointer, frames: asked)
      }
      guard got > 0 else { break }
      for frame in 0..<got { samples.append(buffer[frame * channels]) }
      wanted -= got
    }
    return (first, samples)
  }

  static func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }
}
