import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import SplayConsole

/// `splay`: a terminal music player whose every command is confirmed by the audio server.
struct Splay: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "splay",
    abstract: "A terminal music player that only ever shows what the audio server confirmed.",
    discussion: """
      Every playback command (play, pause, seek, stop, volume, next…) resolves only when the audio server \
      has confirmed it, and the state splay shows changes only then.

      Examples:
        splay play song.flac other.mp3
        splay run fixtures/scripts/pause-resume.splay --output simulated
        splay serve &  splay ctl seek +5  splay ctl follow
        splay info song.flac
        splay library add ~/Music   splay search björk   splay play --search 'artist:björk'
        splay play --resume    (serve resumes by itself; see Resume in README)
        splay config           (the settings of ~/.config/splay/config.toml)

      Exit codes:
        0  success
        1  a command or an expectation failed
        2  usage error (bad arguments, a script that does not parse)
        3  a file could not be read or decoded
        4  the audio output is unavailable or was lost
        129  play's terminal hung up (SIGHUP)
        130  interrupted: Ctrl-C or SIGINT
        143  terminated: SIGTERM ('splay serve' exits 0 on either)
      """,
    version: "0.1.0",
    subcommands: [
      PlayCommand.self, RunCommand.self, ServeCommand.self, CtlCommand.self, InfoCommand.self, ConfigCommand.self,
      LibraryCommand.self, SearchCommand.self, CheckCommand.self,
    ]
  )
}

/// The entry point: parses, runs, and maps every error to a one-line message and a documented exit code.
@main
enum Main {
  static func main() async {
    let status: ExitStatus
    // Before parsing, which takes as long as connecting and opening the first file it overlaps with.
    EarlyStart.begin(arguments: CommandLine.arguments)
    do {
      var command = try Splay.parseAsRoot()
      if let asyncCommand = command as? any AsyncParsableCommand {
        // Only this task touches the command: it waits here until `run()` returns.
        nonisolated(unsafe) var asyncCommand = asyncCommand
        // The command's async code on one serial queue, not the global executor (see SerialTaskExecutor).
        try await withTaskExecutorPreference(SerialTaskExecutor(label: "splay.main")) {
          try await asyncCommand.run()
        }
      } else {
        try command.run()
      }
      status = .success
    } catch let error as CLIError {
      Console.error(error.message)
      status = error.status
    } catch {
      let code = Splay.exitCode(for: error)
      if code == .success {
        // --help, --version: ArgumentParser's text, on stdout.
        Console.out(Splay.fullMessage(for: error))
        status = .success
      } else if let exit = error as? ExitCode {
        status = ExitStatus(rawValue: exit.rawValue) ?? .failed
      } else {
        Console.errorText(Splay.fullMessage(for: error))
        status = .usage
      }
    }
    exit(status.rawValue)
  }
}
