import ArgumentParser
import FoundationEssentials
import PlayerCore
import PlayerLibrary
import PlayerScripts
import ScriptProbes
import SplayConsole

/// `splay check FILE...`: the stock scenarios (play to the end, seeks, pause and resume, a gapless pair, volume
/// steps, a storm of commands) against each file on the user's audio server, each a playback script whose
/// expectations the server's confirmations must meet.
struct CheckCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Check a player setup: stock playback scenarios against each file, confirmed by the server.",
    discussion: """
      Scenarios: \(StockScenarios.names.joined(separator: ", ")). Each is a playback script run with \
      $FILE and $DURATION set (see them with --show NAME); a failure names the scenario's line. One line per \
      file and scenario, then a summary; exits 1 when a check failed, 3 when a file could not be opened.
      """)

  @OptionGroup var outputOptions: OutputOptions

  @Option(
    name: .long,
    help: ArgumentHelp("Run only this scenario (repeatable).", valueName: "name"))
  var scenario: [String] = []

  @Option(name: .long, help: "The storm's random seed (the same seed sends the same commands).")
  var seed: UInt64 = 1

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Report each check as a test case: tap or junit on stdout (instead of the lines), or FORMAT=FILE.",
      valueName: "format"))
  var report: ReportOption?

  @Option(name: .long, help: ArgumentHelp("Print a scenario's script and exit.", valueName: "name"))
  var show: String?

  @Argument(help: ArgumentHelp("Audio files, folders or playlists.", valueName: "file"))
  var files: [String] = []

  func validate() throws {
    for name in scenario + [show].compactMap({ $0 }) where StockScenarios.script(name) == nil {
      throw ValidationError(
        "unknown scenario '\(name.prefix(40))' (expected one of: \(StockScenarios.names.joined(separator: ", ")))")
    }
    if show == nil, files.isEmpty { throw ValidationError("name the files to check") }
  }

  func run() async throws {
    if let show, let script = StockScenarios.script(show, seed: seed) { return Console.out(script) }
    let tracks = try TrackArguments.expand(files)
    for entry in tracks.skipped { Console.error(entry.message) }
    guard !tracks.paths.isEmpty else { throw CLIError(message: "no audio files to check", status: .fileError) }
    if let file = report?.file, !FileManager.default.createFile(atPath: file, contents: nil) {
      throw CLIError(message: "\(file): cannot write the report", status: .fileError)
    }
    SignalExit.install()
    let config = try ConfigFile.load()
    let settings = outputOptions.settings(with: config)
    let session = PlayerSession(settings)
    // The audio scenario's judge: the sink seen over a connection of its own (none on the simulated output).
    let probe = session.pulse.map {
      PulseScriptProbe(output: $0, server: settings.server, sink: settings.sink, decoders: session.decoders)
    }
    let lines = report == nil || report?.file != nil
    var results = CheckReport()
    var unopened = 0
    for file in tracks.paths {
      let opened = await session.timeline.settle(session.controller.load([file]), controller: session.controller)
      guard case .success(let state) = opened, let duration = state.track?.duration, duration.isFinite else {
        unopened += 1
        let why: String
        switch opened {
        case .failure(let error): why = "load failed: \(error.code): \(error.message)"
        case .cancelled: why = "load was cancelled"
        case .success: why = "a live stream has no length to check against"
        }
        for name in scenarios { record(CheckReport.Check(file: file, scenario: name, failure: why, seconds: 0)) }
        continue
      }
      for name in scenarios {
        record(await check(name, file: file, duration: duration, session: session, probe: probe))
      }
    }
    _ = await session.timeline.settle(session.controller.shutdown(), controller: session.controller)
    if lines { Console.out(results.summary) }
    try write(results)
    let serverGone = results.checks.contains {
      $0.failure?.contains("output-unavailable") == true || $0.failure?.contains("output-lost") == true
    }
    if results.failures > 0 || !tracks.skipped.isEmpty {
      let status: ExitStatus =
        serverGone ? .outputError : unopened > 0 || !tracks.skipped.isEmpty ? .fileError : .failed
      throw CLIError(message: "\(results.failures) of \(results.checks.count) checks failed", status: status)
    }
    func record(_ check: CheckReport.Check) {
      results.record(check)
      if lines { Console.out(CheckReport.line(check)) }
    }
  }

  /// The scenarios asked for, in their order.
  private var scenarios: [String] {
    scenario.isEmpty ? StockScenarios.names : StockScenarios.names.filter(scenario.contains)
  }

  /// Runs scenario `name` against `file`.
  private func check(
    _ name: String, file: String, duration: Double, session: PlayerSession, probe: PulseScriptProbe?
  ) async -> CheckReport.Check {
    let started = ContinuousClock.now
    let failure: String?
    var notJudged: String?
    do throws(ScriptParser.Failure) {
      let script = try ScriptParser.parse(
        StockScenarios.script(name, seed: seed) ?? "", name: name,
        variables: StockScenarios.variables(path: file, duration: duration))
      let runner = ScriptRunner(
        controller: session.controller, timeline: session.timeline, probe: script.asksTheServer ? probe : nil)
      failure = await runner.run(script, onStep: { if let reason = $0.notJudged { notJudged = notJudged ?? reason } })?
        .description
    } catch {
      failure = error.description
    }
    let taken = ContinuousClock.now - started
    let seconds = Double(taken.components.seconds) + Double(taken.components.attoseconds) / 1e18
    return CheckReport.Check(file: file, scenario: name, failure: failure, seconds: seconds, notJudged: notJudged)
  }

  /// Writes the report asked for.
  private func write(_ results: CheckReport) throws {
    guard let report else { return }
    let text = report.format == .tap ? results.tap : results.junit
    guard let file = report.file else { return Console.out(bytes: Array(text.utf8)) }
    do {
      try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    } catch {
      throw CLIError(message: "\(file): cannot write the report", status: .fileError)
    }
  }
}
