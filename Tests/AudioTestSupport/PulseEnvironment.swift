import Foundation

/// The private PulseAudio server that `make test` starts (scripts/pulse-sandbox), as the tests see it.
public enum PulseEnvironment {
  /// `PULSE_SERVER`, when set.
  public static let server: String? = ProcessInfo.processInfo.environment["PULSE_SERVER"]

  /// The null sink to record from.
  public static let sink: String = ProcessInfo.processInfo.environment["SPLAY_TEST_SINK"] ?? "splay_null"

  /// The sandbox's flavour (`SPLAY_SANDBOX`, see scripts/pulse-sandbox): pulse, pulse-plain or pipewire.
  public static let flavour: String = ProcessInfo.processInfo.environment["SPLAY_SANDBOX"] ?? "pulse"

  /// Why the sink's monitor does not record, sample for sample, what the sink played; nil when it does. Tests
  /// that compare samples use a resampling-tolerant measure instead, or say why they cannot run.
  public static let inexactRecording: String? = monitorRewinds ?? resampled

  /// Why a sample-exact check may fail through no fault of the player, so that it may be run again (three
  /// attempts at most, and the last must pass): PipeWire's graph on a loaded machine skips part of a cycle at the
  /// sink (seen at 44.1 kHz: a half-scale jump inside a lossless file, no silence; landed main did it too, 1 run
  /// in 4 of PulseOutputTests). Nil on PulseAudio's null sinks.
  public static let graphMayGlitch: String? =
    flavour == "pipewire" ? "PipeWire's graph may skip part of a cycle on a loaded machine" : nil

  /// How many times a check judged at the sink may run on this server: three where the graph may glitch
  /// (``graphMayGlitch``), once elsewhere. The last attempt asserts.
  public static let attemptsAllowingGlitches = graphMayGlitch == nil ? 1 : 3

  /// Why the monitor's recording is not what was heard at all, around a stream's start, cork, flush or seek: the
  /// sink rewinds, and its monitor keeps the audio that a rewind replaced (paplay's own recording of a WAV file
  /// differs from the file in 5,311 of 132,300 frames on this sink). Nil on the other flavours.
  /// Nil on the truth sink too, whose recording is what its clock played.
  public static let monitorRewinds: String? =
    flavour == "pulse-plain" && truthFile == nil
    ? "the sink rewinds, and its monitor keeps the audio that a rewind replaced" : nil

  /// The file in which the sink writes what its clock played, when it is the truth sink (scripts/pulse-sandbox
  /// loads it on pulse-plain where it can build it), read from the sink's module arguments; nil otherwise.
  public static let truthFile: String? = {
    guard server != nil, let modules = try? run("/usr/bin/pactl", ["list", "modules", "short"]).stdout else {
      return nil
    }
    for line in modules.split(separator: "\n") {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count >= 3, fields[1] == "module-truth-sink" else { continue }
      let arguments = fields[2].split(separator: " ")
      guard arguments.contains("sink_name=\(sink)"),
        let file = arguments.first(where: { $0.hasPrefix("file=") })
      else { continue }
      return String(file.dropFirst("file=".count))
    }
    return nil
  }()

  /// Why the monitor records resampled audio (PipeWire's graph at another rate than the files' 44.1 kHz), or nil.
  public static let resampled: String? = {
    guard flavour == "pipewire" else { return nil }
    let rate = ProcessInfo.processInfo.environment["SPLAY_SANDBOX_RATE"] ?? "48000"
    return rate == "44100" ? nil : "the graph runs at \(rate) Hz, so the 44.1 kHz files are resampled"
  }()

  /// The latency the monitor recorder asks for. PipeWire's pulse server garbles a 5 ms capture (frames lost and
  /// repeated in one of a few hundred blocks, paplay's own audio included); 20 ms records it intact.
  public static let recorderLatencyMilliseconds = flavour == "pipewire" ? 20 : 5

  /// How far ahead of its clock `sink` has rendered, in microseconds (`pactl list sinks`), or nil.
  public static func sinkLatency(of sink: String) -> Int? {
    guard let listing = try? run("/usr/bin/pactl", ["list", "sinks"]).stdout else { return nil }
    for block in listing.components(separatedBy: "Sink #").dropFirst() where block.contains("Name: \(sink)\n") {
      guard let line = block.split(separator: "\n").first(where: { $0.contains("Latency: ") }),
        let value = line.split(separator: " ").dropFirst().first(where: { Int($0) != nil })
      else { return nil }
      return Int(value)
    }
    return nil
  }

  /// True when a server is configured and answers `pactl info`; the suites that need one are disabled by a
  /// trait otherwise, and the summary counts them as skipped.
  public static let available: Bool = {
    guard server != nil else { return false }
    return (try? run("/usr/bin/pactl", ["info"]))?.status == 0
  }()

  /// The sink inputs of this process, in the server's order, with their volume in percent: other test
  /// processes (the CLI suites' `splay` children) play to the same server at the same time.
  public static func ownSinkInputs() throws -> [(index: String, volume: Int)] {
    let listing = try run("/usr/bin/pactl", ["list", "sink-inputs"]).stdout
    let pid = "application.process.id = \"\(getpid())\""
    return listing.components(separatedBy: "Sink Input #").dropFirst().filter { $0.contains(pid) }.compactMap {
      block in
      guard let volumeLine = block.split(separator: "\n").first(where: { $0.contains("Volume: front-left") }),
        let percent = volumeLine.split(separator: "/").dropFirst().first,
        let volume = Int(percent.trimmingCharacters(in: .whitespaces).dropLast())
      else { return nil }
      return (String(block.prefix { $0.isNumber }), volume)
    }
  }

  /// The sink input of this process that is not in `known` (the indices listed before a stream was opened),
  /// waited for up to 2 s (nil if none came): a stream another test of this process keeps open must not be
  /// taken for it.
  public static func newSinkInput(notIn known: Set<String>) async throws -> (index: String, volume: Int)? {
    for _ in 0..<200 {
      if let found = try ownSinkInputs().first(where: { !known.contains($0.index) }) { return found }
      try await Task.sleep(for: .milliseconds(10))
    }
    return nil
  }

  /// The indices of this process's sink inputs now, for ``newSinkInput(notIn:)``.
  public static func ownSinkInputIndices() throws -> Set<String> { Set(try ownSinkInputs().map(\.index)) }

  /// Runs a program that may leave daemons behind (a PulseAudio server, a tmux server) and returns its exit
  /// status, its output going to `output`: a ``ChildProcess`` holds none of the test process's descriptors, so
  /// a daemon it leaves keeps no reader of this process waiting.
  public static func runDetached(_ arguments: [String], output: String = "/dev/null") throws -> Int32 {
    try ChildProcess.run(arguments, stdout: output).status
  }

  /// Runs a program to completion and returns its status and output.
  public static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    try ChildProcess.run([path] + arguments, environment: environment ?? ProcessInfo.processInfo.environment)
  }
}
