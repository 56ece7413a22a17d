import ControlProtocol
import PlayerCore
import PlayerScripts
import SplayConsole

/// Where `splay run` prints what happens: the states (human lines, or JSON lines with `--json`), how late each
/// trigger fired, and a report on stdout, which takes the states' place (TAP keeps them as comments).
struct RunOutput: Sendable {
  let json: Bool
  let report: ReportOption?

  /// Whether the states go to stdout as states (no report there).
  private var statesOnStdout: Bool { report == nil || report?.file != nil }
  /// Whether a TAP report streams on stdout.
  var tapOnStdout: Bool { report?.format == .tap && report?.file == nil }

  /// Prints a confirmed state.
  func state(_ state: PlayerState) {
    if statesOnStdout {
      Console.out(json ? state.jsonText : RunCommand.describe(state))
    } else if tapOnStdout {
      Console.out(Self.comment(RunCommand.describe(state)))
    }
  }

  /// Prints how late a trigger fired: with the states, or on stderr beside JSON lines or XML.
  func note(_ text: String) {
    if tapOnStdout {
      Console.out(Self.comment(text))
    } else if json || !statesOnStdout {
      Console.errorText(text)
    } else {
      Console.out(text)
    }
  }

  /// A TAP comment line: a tag with a newline must not start a line of its own in the stream.
  private static func comment(_ text: String) -> String {
    "# " + String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 ? " " : $0 }))
  }

  /// Prints TAP text when the TAP report streams on stdout.
  func tap(_ text: String) {
    if tapOnStdout { Console.out(bytes: Array(text.utf8)) }
  }
}
