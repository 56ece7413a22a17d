import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import Testing

/// The model test on the real server, with the sink's monitor as the oracle: random sequences of pauses,
/// seeks (before, at and past the end), next, previous, jumps, volume steps and waits over three tracks whose
/// every fifth of a second sounds a frequency of its own (``PositionTones``). After each confirmation, what the
/// sink plays must be what the state says: the track and position while playing, silence otherwise.
///
/// `SPLAY_PULSE_MODEL_SEQUENCES` sets how many sequences run (3 by default, 200 for a long run);
/// `SPLAY_PULSE_MODEL_SEED` replays one, and `SPLAY_PULSE_MODEL_STEPS` runs the steps given instead (script
/// commands and `wait S`, separated by `;`), to narrow a failure down; `SPLAY_PULSE_MODEL_TRACE=1` prints each
/// confirmed state. A failure names its seed and the steps that led to it.
@Suite(
  .serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"),
  .enabled(
    if: Sanitizer.name == nil,
    "a sanitizer slows the decoder into dropouts, which the sink's timing would report as wrong states"))
struct PulseModelTests {
  static let environment = ProcessInfo.processInfo.environment
  static let sequences = Int(environment["SPLAY_PULSE_MODEL_SEQUENCES"] ?? "") ?? 3
  static let steps = 12
  static let trace = environment["SPLAY_PULSE_MODEL_TRACE"] == "1"
  static let tracks = 3
  /// How far the heard position may be from the confirmed one: the monitor's chunks are stamped on arrival, a
  /// chunk (the recorder's latency) after their first frame played.
  static let tolerance = 0.03 + Double(PulseEnvironment.recorderLatencyMilliseconds) / 1000

  /// One step of a sequence.
  enum Step: CustomStringConvertible {
    case command(PlayerCommand)
    case wait(Double)

    var description: String {
      switch self {
      case .command(let command): "\(command)"
      case .wait(let seconds): "wait \(seconds)"
      }
    }
  }

  static func randomStep(_ rng: inout SplitMix64) -> Step {
    let end = PositionTones.trackSeconds
    switch Int.random(in: 0..<16, using: &rng) {
    case 0, 1, 2: return .command(.play)
    case 3, 4: return .command(.pause)
    case 5: return .command(.toggle)
    case 6: return .command(.seek(.absolute(Double(Int.random(in: 0...38, using: &rng)) / 10)))
    case 7: return .command(.seek(.absolute([end - 0.05, end, end + 0.5, 90][Int.random(in: 0...3, using: &rng)])))
    case 8: return .command(.seek(.relative(Double(Int.random(in: -25...25, using: &rng)) / 10)))
    case 9: return .command(.next)
    case 10: return .command(.previous)
    case 11: return .command(.jump(toIndex: Int.random(in: 0..<tracks, using: &rng)))
    case 12: return .command(.volume(.absolute(Int.random(in: 50...100, using: &rng))))
    case 13: return .command(.stop)
    default: return .wait(Double(Int.random(in: 1...12, using: &rng)) / 10)
    }
  }

  @Test func randomSequencesConfirmWhatTheSinkPlays() async throws {
    let folder = FileManager.default.temporaryDirectory.path + "/splay-model-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let paths = (0..<Self.tracks).map { "\(folder)/tone-\($0).wav" }
    for (track, path) in paths.enumerated() { try PositionTones.write(track: track, to: path) }
    let seeds: [UInt64] =
      if let seed = Self.environment["SPLAY_PULSE_MODEL_SEED"].flatMap({ UInt64($0) }) {
        [seed]
      } else {
        (0..<Self.sequences).map { _ in UInt64.random(in: 0...UInt64.max) }
      }
    // On PipeWire a failed sequence runs again, three times at most (PulseEnvironment.graphMayGlitch): the
    // monitor there once delivered nothing for about 1.4 s and then all of it at once, which put the window
    // judged later than it played (pipewire, CI, 2026-12-02; the seed then passed three times of three).
    let attempts = PulseEnvironment.attemptsAllowingGlitches
    try await ExclusiveSink.run {
      for seed in seeds {
        for attempt in 1...attempts {
          guard let failure = try await Self.check(seed: seed, paths: paths) else { break }
          guard attempt == attempts else {
            print("PulseModelTests: seed \(seed), attempt \(attempt): \(failure); running it again")
            continue
          }
          Issue.record("seed \(seed) (SPLAY_PULSE_MODEL_SEED=\(seed) replays it): \(failure)")
          return
        }
      }
    }
  }

  /// Runs one seeded sequence; returns the first disagreement between a confirmed state and the sink, or nil.
  static func check(seed: UInt64, paths: [String]) async throws -> String? {
    var rng = SplitMix64(seed: seed)
    let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())
    let recorder = try MonitorRecorder()
    defer { _ = recorder.stop() }
    var history: [String] = []
    func run(_ command: PlayerCommand) async -> String? {
      history.append("\(command)")
      let outcome = await controller.send(command).settled
      let at = MonitorRecorder.now()
      // A refused command (previous on the first track, play when ended…) changes nothing: the state before
      // it must still hold.
      let state: PlayerState
      switch outcome {
      case .success(let confirmed): state = confirmed
      case .failure, .cancelled: state = controller.state
      }
      if trace {
        print("model: \(command) → \(state.status.name) #\(state.index ?? -1) \(state.position.seconds) s at \(at)")
      }
      guard let disagreement = await verify(state, confirmedAt: at, recorder: recorder) else { return nil }
      return "after \(history.joined(separator: ", ")): \(disagreement)"
    }
    defer { _ = controller.shutdown() }
    for command in [PlayerCommand.load(paths), .volume(.absolute(100)), .play] {
      if let failure = await run(command) { return failure }
    }
    let given = environment["SPLAY_PULSE_MODEL_STEPS"].map { text in
      text.split(separator: ";").map { line -> Step in
        let words = line.split(separator: " ")
        if words.first == "wait", let seconds = words.last.flatMap({ Double($0) }) { return .wait(seconds) }
        return .command((try? CommandParser.parse(line)) ?? .play)
      }
    }
    for index in 0..<(given?.count ?? Self.steps) {
      switch given?[index] ?? randomStep(&rng) {
      case .command(let command):
        if let failure = await run(command) { return failure }
      case .wait(let seconds):
        history.append("wait \(seconds)")
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        guard let state = try? await confirmed(controller.refresh()) else { continue }
        if let failure = await verify(state, confirmedAt: MonitorRecorder.now(), recorder: recorder) {
          return "after \(history.joined(separator: ", ")): \(failure)"
        }
      }
    }
    _ = await controller.shutdown().settled
    return nil
  }

  /// What the sink played from 40 ms after `at` on, against `state`: the track and the position it estimates
  /// while playing (unless a track boundary falls in the window), silence otherwise.
  static func verify(_ state: PlayerState, confirmedAt at: UInt64, recorder: MonitorRecorder) async -> String? {
    let from = at + 40_000_000
    // Wait until the monitor delivered 150 ms past that (the truth sink writes a block once it played it).
    let deadline = MonitorRecorder.now() + 10_000_000_000
    var recording = recorder.snapshot()
    while (recording.arrivals.last?.time ?? 0) < from + 150_000_000, MonitorRecorder.now() < deadline {
      try? await Task.sleep(for: .milliseconds(20))
      recording = recorder.snapshot()
    }
    guard let chunk = recording.arrivals.firstIndex(where: { $0.time >= from }) else {
      return "the monitor delivered nothing after the confirmation"
    }
    let start = recording.arrivals[chunk].frame
    let left = recording.left
    guard left.count >= start + PositionTones.windowFrames * 2 else { return "the recording is too short" }
    let window = left[start..<(start + PositionTones.windowFrames)]
    let heard = PositionTones.identify(window, rate: recording.rate, tracks: tracks)
    let label = "\(state.status.name) track \((state.index ?? -1) + 1) at \(state.position.seconds) s"
    guard state.status == .playing else {
      guard let heard else { return nil }
      return "confirmed \(label), but the sink plays track \(heard.track + 1) step \(heard.step)"
    }
    // The chunk arrived when its last frame had played: its first frame played a chunk's length before.
    let end = chunk + 1 < recording.arrivals.count ? recording.arrivals[chunk + 1].frame : recording.frameCount
    let played = recording.arrivals[chunk].time - UInt64(Double(end - start) / Double(recording.rate) * 1e9)
    let middle = played + UInt64(Double(PositionTones.windowFrames) / 2 / Double(recording.rate) * 1e9)
    let expected = state.position.estimated(at: middle)
    // Near a track's end the window may hold the next track: the following steps judge that one.
    if expected > PositionTones.trackSeconds - 0.2 { return nil }
    guard let heard else { return "confirmed \(label), expected \(expected) s at the sink, which is silent" }
    let stepStart = Double(heard.step) * PositionTones.stepSeconds
    let fits =
      heard.track == state.index && expected >= stepStart - tolerance
      && expected <= stepStart + PositionTones.stepSeconds + tolerance
    guard !fits else { return nil }
    return "confirmed \(label), expected track \((state.index ?? -1) + 1) at \(String(format: "%.3f", expected)) s "
      + "at the sink, heard track \(heard.track + 1) at \(stepStart)–\(stepStart + PositionTones.stepSeconds) s"
  }
}
