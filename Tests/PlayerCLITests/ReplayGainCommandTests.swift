import AudioTestSupport
import Foundation
import Testing

/// ReplayGain as a user turns it on: the config's keys and `--replaygain`, what `play`, `ctl status` and
/// `splay config` say about it, and a gain heard from the first frame `play` sends.
@Suite struct ReplayGainCommandTests {
  /// A copy of the tone ladder (peaks at 0.5) in `folder`, tagged with a track gain of -6.0206 dB (a factor of
  /// 1/2) and an album gain of -3 dB.
  private static func taggedLadder(in folder: String) throws -> String {
    let path = folder + "/ladder.flac"
    try FileManager.default.copyItem(atPath: Splay.fixture("media/ladder-44k-stereo.flac"), toPath: path)
    let tagged = try PulseEnvironment.run(
      "/usr/bin/metaflac",
      ["--set-tag=REPLAYGAIN_TRACK_GAIN=-6.0206 dB", "--set-tag=REPLAYGAIN_ALBUM_GAIN=-3.00 dB", path])
    try #require(tagged.status == 0, "metaflac: \(tagged.stderr)")
    return path
  }

  private static func gain(_ state: [String: Any]?) -> [String: Any]? {
    (state?["track"] as? [String: Any])?["replayGain"] as? [String: Any]
  }

  /// The option wins over the config; the state names the gain and its source.
  @Test func theStateNamesTheGainAndTheOptionWins() throws {
    let home = try ConfigFileTests.ConfigHome("output = \"simulated\"\nreplaygain = \"album\"\n")
    let path = try Self.taggedLadder(in: home.scratch.path)
    let album = try Splay.run(["play", "--json", path], environment: home.environment)
    #expect(album.status == 0, "\(album.stderr)")
    #expect(Self.gain(album.jsonLines.last)?["source"] as? String == "album")
    #expect(Self.gain(album.jsonLines.last)?["decibels"] as? Double == -3)
    let track = try Splay.run(
      ["play", "--json", "--replaygain", "track", "--replaygain-preamp", "1.5", path], environment: home.environment)
    #expect(Self.gain(track.jsonLines.last)?["source"] as? String == "track")
    #expect(Self.gain(track.jsonLines.last)?["decibels"] as? Double == -6.0206 + 1.5)
    // A negative preamp is a value, not an option.
    let quieter = try Splay.run(
      ["play", "--json", "--replaygain", "track", "--replaygain-preamp", "-3", path], environment: home.environment)
    #expect(quieter.status == 0, "\(quieter.stderr)")
    #expect(Self.gain(quieter.jsonLines.last)?["decibels"] as? Double == -6.0206 - 3)
    let off = try Splay.run(["play", "--json", "--replaygain", "off", path], environment: home.environment)
    #expect(off.status == 0)
    #expect(Self.gain(off.jsonLines.last) == nil, "off: no gain in the state")
  }

  @Test func aBadOptionIsAUsageError() throws {
    let mode = try Splay.run(["play", "--output", "simulated", "--replaygain", "loud", "x.flac"])
    #expect(mode.status == 2)
    #expect(mode.stderr.contains("--replaygain"), "\(mode.stderr)")
    let preamp = try Splay.run(["play", "--output", "simulated", "--replaygain-preamp", "40", "x.flac"])
    #expect(preamp.status == 2)
    #expect(preamp.stderr.contains("--replaygain-preamp must be a number of decibels from -15 to 15"))
  }

  /// `ctl status` ends its volume line with the gain; `splay config` reports each key and where it came from.
  @Test func statusAndConfigSayWhatIsApplied() throws {
    let home = try ConfigFileTests.ConfigHome(
      "output = \"simulated\"\nreplaygain = \"track\"\nreplaygain-untagged = -4.5\nreplaygain-clip = true\n")
    let path = try Self.taggedLadder(in: home.scratch.path)
    let socket = home.scratch.path + "/control.sock"
    let environment = ProcessInfo.processInfo.environment.merging(home.environment) { $1 }
    let serve = try ChildProcess(
      [Splay.binary, "serve", "--no-mpris", "--no-resume", "--socket", socket], environment: environment)
    defer {
      serve.terminate()
      _ = serve.wait(timeout: 10)
    }
    #expect(ControlClient.waitForListener(at: socket), "serve did not listen")
    #expect(try Splay.run(["ctl", "--socket", socket, "load", path]).status == 0)
    // On a terminal (script(1) gives it one), the summary a person reads.
    let status = try Splay.run(
      ["-qec", "\(Splay.binary) ctl --socket \(socket) status", "/dev/null"], program: "/usr/bin/script")
    #expect(status.stdout.contains("   replaygain: track -6.02 dB"), "\(status.stdout)")

    let report = try Splay.run(["config"], environment: home.environment)
    let lines = report.stdout.split(separator: "\n").map(String.init)
    func row(_ key: String) -> String? { lines.first { $0.hasPrefix(key + " = ") } }
    #expect(row("replaygain")?.hasPrefix("replaygain = \"track\"") == true, "\(lines)")
    #expect(row("replaygain")?.hasSuffix("# config.toml:2") == true)
    #expect(row("replaygain-untagged")?.hasPrefix("replaygain-untagged = -4.5 ") == true)
    #expect(row("replaygain-preamp")?.hasSuffix("# default") == true)
    #expect(row("replaygain-clip")?.hasSuffix("# config.toml:4") == true)
  }

  /// With the gain in the config, `splay play FILE` (which otherwise starts playing before its command line is
  /// parsed) is heard at the gain from its first frame, and once: the ladder's steps all peak alike, nothing
  /// louder reaches the sink, and the ladder starts at its first step. Before the config could stop the early
  /// start, its first milliseconds went out without the gain. At `--volume 100`, which changes nothing early
  /// with a gain on: PipeWire gives a new stream the volume a test before left (0 once, and silence).
  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func aConfiguredGainIsHeardFromTheFirstFrame() async throws {
    let home = try ConfigFileTests.ConfigHome("replaygain = \"track\"\n")
    let path = try Self.taggedLadder(in: home.scratch.path)
    try await ExclusiveSink.run {
      // On PipeWire a play whose first 0.1 s peaks apart from the rest runs again, three times at most: once
      // the whole first 0.1 s peaked 7.9 % low there (pipewire, 2026-12-02), while the louder peak a missing
      // gain gives (twice the level) was never seen. The last attempt asserts.
      var (result, recording) = try Self.playRecorded(path, home)
      for attempt in 1..<PulseEnvironment.attemptsAllowingGlitches {
        guard let start = recording.firstAudibleFrame(), Self.firstPeakRatio(recording.left, start) > 0.03 else {
          break
        }
        print("aConfiguredGainIsHeardFromTheFirstFrame: attempt \(attempt): the first 0.1 s peaked apart; again")
        (result, recording) = try Self.playRecorded(path, home)
      }
      #expect(result.status == 0, "\(result.stderr)")
      #expect(Self.gain(result.jsonLines.last)?["decibels"] as? Double == -6.0206)
      let left = recording.left
      let start = try #require(recording.firstAudibleFrame(), "nothing reached the sink")
      func peak(_ from: Double, _ to: Double) -> Float {
        let range = min(left.count, start + Int(from * 44_100))..<min(left.count, start + Int(to * 44_100))
        return left[range].map { abs($0) }.max() ?? 0
      }
      let settled = peak(0.5, 1.5)
      try #require(settled > 0.01, "the track was not heard a second in")
      #expect(Self.firstPeakRatio(left, start) < 0.03, "the first 0.1 s peaked at \(peak(0, 0.1)), later \(settled)")
      let loudest = left.map { abs($0) }.max() ?? 0
      #expect(abs(loudest / settled - 1) < 0.03, "the loudest sample was \(loudest), the track's peak \(settled)")
      #expect(
        SignalAnalysis.ladderSteps(left, from: start, rate: recording.rate, count: 4) == [0, 1, 2, 3],
        "the track from its start, once")
    }
  }

  /// `splay play --json --volume 100 PATH` in `home`, and what the sink's monitor recorded meanwhile.
  private static func playRecorded(_ path: String, _ home: ConfigFileTests.ConfigHome) throws -> (
    Splay.Result, MonitorRecorder.Recording
  ) {
    let recorder = try MonitorRecorder()
    let result = try Splay.run(["play", "--json", "--volume", "100", path], environment: home.environment)
    return (result, recorder.stop())
  }

  /// How far the first 0.1 s from `start` peaks from the peak between 0.5 s and 1.5 s, as a fraction of it.
  private static func firstPeakRatio(_ left: [Float], _ start: Int) -> Float {
    func peak(_ from: Double, _ to: Double) -> Float {
      let range = min(left.count, start + Int(from * 44_100))..<min(left.count, start + Int(to * 44_100))
      return left[range].map { abs($0) }.max() ?? 0
    }
    let settled = peak(0.5, 1.5)
    return settled > 0 ? abs(peak(0, 0.1) / settled - 1) : .infinity
  }

  /// With ReplayGain on, `play FILE` only connects before its parse: a stream prepared for the bare file would be
  /// let go once the gained one opens, a second stream at the server before the first sound. Off (by the option or
  /// the config), the prepared stream is the one that plays. Each run makes exactly one stream.
  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func aGainedPlayMakesOneStream() async throws {
    let gained = try ConfigFileTests.ConfigHome("replaygain = \"album\"\n")
    let path = gained.scratch.path + "/short.flac"
    try FileManager.default.copyItem(atPath: Splay.fixture("media/short-44k-stereo.flac"), toPath: path)
    let tagged = try PulseEnvironment.run("/usr/bin/metaflac", ["--set-tag=REPLAYGAIN_TRACK_GAIN=-6 dB", path])
    try #require(tagged.status == 0, "metaflac: \(tagged.stderr)")
    let off = try ConfigFileTests.ConfigHome("replaygain = \"off\"  # for now\n")
    try await ExclusiveSink.run {
      for (options, home) in [
        (["--replaygain", "track"], nil), (["--replaygain=auto"], nil), ([], gained), ([], off),
        (["--replaygain", "off"], gained), (["--volume", "100"], nil),
      ] as [([String], ConfigFileTests.ConfigHome?)] {
        let events = try SinkInputEvents()
        let result = try Splay.run(["play", "--json"] + options + [path], environment: home?.environment ?? [:])
        #expect(result.status == 0, "\(options): \(result.stderr)")
        #expect(try events.created() == 1, "\(options), config \(home.map { "\($0.file)" } ?? "none")")
      }
    }
  }
}

/// The sink inputs the server makes while it lives, as `pactl subscribe` reports them.
private final class SinkInputEvents {
  private let log: String
  private let process: ChildProcess

  /// Subscribed once this returns: a change made after the subscription has been reported.
  init() throws {
    log = FileManager.default.temporaryDirectory.path + "/splay-events-\(getpid())-\(UInt64.random(in: 0 ... .max))"
    // Line-buffered: pactl writes a file through a full stdio buffer otherwise.
    process = try ChildProcess(["/usr/bin/stdbuf", "-oL", "/usr/bin/pactl", "subscribe"], stdout: log)
    try sync()
  }

  deinit {
    // Killed: spawned from the test process, `pactl subscribe` outlived a SIGTERM by the 5 s wait.
    kill(process.pid, SIGKILL)
    _ = process.wait(timeout: 5)
    unlink(log)
  }

  /// How many sink inputs were made so far.
  func created() throws -> Int {
    try sync()
    return text.components(separatedBy: "Event 'new' on sink-input").count - 1
  }

  private var text: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

  /// Mutes the sink and unmutes it (a change to the same value is not reported), and waits until the
  /// subscription reported both: every event before them is in the log.
  private func sync() throws {
    func changes() -> Int { text.components(separatedBy: "Event 'change' on sink #").count }
    let before = changes()
    // Again while unanswered: the first changes may come before `pactl subscribe` has subscribed.
    for _ in 0..<25 where changes() < before + 2 {
      for mute in ["1", "0"] {
        let changed = try PulseEnvironment.run("/usr/bin/pactl", ["set-sink-mute", "@DEFAULT_SINK@", mute])
        try #require(changed.status == 0, "pactl: \(changed.stderr)")
      }
      for _ in 0..<100 where changes() < before + 2 { usleep(2_000) }
    }
    try #require(changes() >= before + 2, "pactl subscribe: \(text)")
  }
}
