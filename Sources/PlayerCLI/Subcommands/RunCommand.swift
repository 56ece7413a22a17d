import ArgumentParser
import ControlProtocol
import Dispatch
import FoundationEssentials
import Glibc
import PlayerCore
import PlayerScripts
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
      parsed = try ScriptParser.parse(text, name: name).resolvingPaths(relativeTo: directory)
    } catch {
      throw CLIError(message: error.description, status: .usage)
    }

    SignalExit.install()
    let config = try ConfigFile.load()
    let session = PlayerSession(
      outputOptions.settings(with: config), replayGain: replayGainOptions.policy(with: config)
    ) { error in
      Console.error(error.message)
    }
    let controller = session.controller
    let json = self.json
    let observation = controller.observe { state in
      Console.out(json ? state.jsonText : Self.describe(state))
    }
    defer { observation.cancel() }
    let failure = await ScriptRunner(
      controller: controller, timeline: session.timeline, onSkipped: { Console.error($0) },
      // How late each `at` fired goes with the states: on stdout, or on stderr beside JSON lines.
      onTrigger: { json ? Console.errorText($0) : Console.out($0) }
    ).run(parsed)
    _ = await session.timeline.settle(controller.shutdown(), controller: controller)
    if let failure {
      let status: ExitStatus = failure.message.contains("output-unavailable") ? .outputError : .failed
      throw CLIError(message: failure.description, status: status)
    }
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
