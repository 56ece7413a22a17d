import ArgumentParser
import ControlProtocol
import Dispatch
import FoundationEssentials
import Glibc
import PlayerCore
import PlayerScripts
import ScriptProbes
import SplayConsole

/// `splay run SCRIPT`: runs a playback script whose `expect` lines check the confirmed state.
struct RunCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Run a playback script; its expect lines make it a state-consistency test.",
    discussion: """
      One command per line (the vocabulary of 'splay ctl'), '#' comments, plus:
        wait 1.5                                 wait until ended|paused|playing|stopped [timeout 10]
        expect state paused                      expect position 12.0 ± 0.05
        expect volume 50                         expect track 2          expect title "Intro"
        expect error invalid-state               (after a command that should fail)
        at 5.0 seek 12      at end-2 pause       on track 3 volume 50     on ended stop
        wait until position >= 12.5              wait until track 2
      Each command waits for its confirmation before the next line runs. The whole script is parsed \
      first: a script that does not parse exits 2 before any audio starts. A failed command or \
      expectation prints SCRIPT:LINE: what was expected, what was confirmed, and exits 1.
      'at' fires when the confirmed position reaches the time (how late is printed); 'on' when the \
      event is confirmed; both fail at once when playback stops short of it.
      Relative paths in load and enqueue are taken from the script's folder (from the current folder for -).
      With --output simulated, no sound server is needed and waits take no wall time.
      """)

  @OptionGroup var outputOptions: OutputOptions

  @OptionGroup var replayGainOptions: ReplayGainOptions

  @Flag(name: .long, help: "Print each confirmed state as a JSON line on stdout.")
  var json = false

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Report each line as a test case: tap or junit on stdout (instead of the states), or FORMAT=FILE.",
      valueName: "format"))
  var report: ReportOption?

  @Option(
    name: .long,
    help: ArgumentHelp("Define a variable the script reads as $NAME (repeatable).", valueName: "name=value"))
  var set: [String] = []

  @Option(
    name: .long,
    help: ArgumentHelp("Write the state confirmed after each line to FILE, as JSON lines.", valueName: "file"))
  var record: String?

  @Option(
    name: .customLong("expect-log"),
    help: ArgumentHelp(
      "Hold the run to a log written by --record: each line's state must match (positions within --log-tolerance).",
      valueName: "file"))
  var expectLog: String?

  @Option(
    name: .customLong("log-tolerance"),
    help: ArgumentHelp("How far a position may stray from the log's, in seconds (default 0.1).", valueName: "seconds"))
  var logTolerance: Double = 0.1

  /// The variables `--set` defines.
  var variables: ScriptVariables {
    ScriptVariables(
      Dictionary(
        set.map { definition in
          let parts = definition.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
          return (String(parts[0]), parts.count == 2 ? String(parts[1]) : "")
        }, uniquingKeysWith: { _, last in last }))
  }

  func validate() throws {
    for definition in set {
      let name = definition.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
      guard definition.contains("="), ScriptVariables.isName(name) else {
        throw ValidationError("--set takes NAME=VALUE, NAME of letters, digits and _: '\(definition.prefix(40))'")
      }
    }
    guard logTolerance.isFinite, logTolerance >= 0, logTolerance <= 86_400 else {
      throw ValidationError("--log-tolerance must be seconds from 0 to 86400")
    }
    if json, let report, report.file == nil {
      throw ValidationError(
        "--json and a --report on stdout would mix on stdout: give the report a file (\(report.format)=FILE)")
    }
  }

  @Argument(help: ArgumentHelp("The script file, or - for stdin.", valueName: "script"))
  var script: String

  func run() async throws {
    let name = script
    let text: String
    do throws(FileContents.ReadError) {
      let bytes = script == "-" ? try FileContents.readStandardInput() : try FileContents.read(path: script)
      text = String(decoding: bytes, as: UTF8.self)
    } catch {
      throw CLIError(message: "\(script): cannot read the script (\(error.reason))", status: .usage)
    }
    let parsed: PlaybackScript
    do throws(ScriptParser.Failure) {
      let directory = script == "-" ? "" : FileContents.directory(of: script)
      parsed = try ScriptParser.parse(
        text, name: name, variables: variables, source: .files, directory: directory
      ).resolvingPaths(relativeTo: directory)
    } catch {
      throw CLIError(message: error.description, status: .usage)
    }

    // A log or a report that cannot be read or written is said before anything plays.
    var expected = try expectLog.map { try RunStateLog.Expected(path: $0, tolerance: logTolerance) }
    if let file = report?.file, !FileManager.default.createFile(atPath: file, contents: nil) {
      throw CLIError(message: "\(file): cannot write the report", status: .fileError)
    }
    if let record, !FileManager.default.createFile(atPath: record, contents: nil) {
      throw CLIError(message: "\(record): cannot write the log", status: .fileError)
    }
    SignalExit.install()
    let config = try ConfigFile.load()
    let underflows = EventCounter()
    let settings = outputOptions.settings(with: config)
    let session = PlayerSession(
      settings, replayGain: replayGainOptions.policy(with: config),
      onSkipped: { Console.error($0.message) }, onUnderflow: underflows.increment)
    let controller = session.controller
    let output = RunOutput(json: json, report: report)
    let observation = controller.observe { output.state($0) }
    defer { observation.cancel() }
    var results = ScriptReport(script: parsed)
    var recorded: [StateLogEntry] = []
    output.tap(results.tapHeader)
    let probe = session.pulse.flatMap { pulse in
      parsed.asksTheServer
        ? PulseScriptProbe(output: pulse, server: settings.server, sink: settings.sink, decoders: session.decoders)
        : nil
    }
    let runner = ScriptRunner(
      controller: controller, timeline: session.timeline, onSkipped: { Console.error($0) }, onNote: output.note,
      underflows: { underflows.value }, probe: probe)
    let failure = await runner.run(
      parsed, verify: { step, state in expected?.check(step, state) },
      onStep: { outcome in
        results.record(outcome)
        recorded.append(StateLogEntry(line: outcome.step.line, text: outcome.step.text, state: outcome.state))
        output.tap(results.tapLine(outcome, number: results.outcomes.count))
      })
    _ = await session.timeline.settle(controller.shutdown(), controller: controller)
    let rest = failure == nil ? expected?.rest : nil
    // A failure no line holds (a known failure that did not happen, a log longer than the run) is a case too.
    if let failure, !results.outcomes.contains(where: { $0.failure != nil }) {
      results.runFailure = failure.description
    }
    if let rest { results.runFailure = rest }
    try write(results, as: report)
    if let record { try RunStateLog.write(recorded, to: record) }
    if let rest { throw CLIError(message: rest, status: .failed) }
    if let failure {
      let status: ExitStatus = failure.message.contains("output-unavailable") ? .outputError : .failed
      throw CLIError(message: failure.description, status: status)
    }
  }

  /// Writes the rest of the report: the TAP lines of the lines that did not run, or the whole JUnit XML.
  private func write(_ results: ScriptReport, as report: ReportOption?) throws {
    guard let report else { return }
    let text = report.format == .tap ? (report.file == nil ? results.tapRest : tapText(results)) : results.junit
    guard let file = report.file else { return Console.out(bytes: Array(text.utf8)) }
    do {
      try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    } catch {
      throw CLIError(message: "\(file): cannot write the report (\(error.localizedDescription))", status: .fileError)
    }
  }

  /// The whole TAP report, for a file.
  private func tapText(_ results: ScriptReport) -> String {
    results.tapHeader
      + results.outcomes.enumerated().map { results.tapLine($1, number: $0 + 1) }.joined()
      + results.tapRest
  }

  /// One human line per confirmed state: revision, status, position, volume, track.
  static func describe(_ state: PlayerState) -> String {
    var text = "#\(state.revision) \(state.status.name)"
    if case .failed(let error) = state.status { text += " (\(error.code))" }
    if let track = state.track {
      text += " \(clockTime(state.position.seconds)) / " + (track.isLive ? "live" : clockTime(track.duration))
      text += " track \((state.index ?? 0) + 1)/\(state.queueLength) \"\(track.displayTitle)\""
    }
    return text + " volume \(state.volume)%"
  }

}
