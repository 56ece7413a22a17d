import PlayerCore

/// Parses the trigger lines of a script: `at 5.0 COMMAND`, `at end-2 COMMAND`, `on track 3 COMMAND`,
/// `on ended COMMAND`, and the points `wait until` takes besides a state (`position >= 12.5`, `track 2`).
enum TriggerParser {
  /// `at POSITION COMMAND...`, POSITION being seconds or `end-SECONDS`.
  static func parseAt(_ tokens: [CommandTokenizer.Token]) throws(CommandParseError) -> ScriptAction {
    guard tokens.count >= 3 else {
      throw CommandParseError(
        column: tokens[0].column, message: "at needs a position and a command (at 5.0 pause, at end-2 next)")
    }
    return .at(try position(tokens[1]), try command(Array(tokens.dropFirst(2))))
  }

  /// `on track N COMMAND...` or `on STATE COMMAND...`.
  static func parseOn(_ tokens: [CommandTokenizer.Token]) throws(CommandParseError) -> ScriptAction {
    guard tokens.count >= 3 else {
      throw CommandParseError(
        column: tokens[0].column, message: "on needs an event and a command (on track 2 pause, on ended stop)")
    }
    if tokens[1].text.lowercased() == "track" {
      guard tokens.count >= 4 else {
        throw CommandParseError(column: tokens[1].column, message: "on track needs a number and a command")
      }
      return .at(.track(try trackNumber(tokens[2])), try command(Array(tokens.dropFirst(3))))
    }
    return .at(.status(try ScriptParser.statusName(tokens[1])), try command(Array(tokens.dropFirst(2))))
  }

  /// The point of `wait until position >= SECONDS` or `wait until track N` (`tokens` from `position` or
  /// `track` on); nil when the words name a state instead.
  static func parseWaitPoint(_ tokens: ArraySlice<CommandTokenizer.Token>) throws(CommandParseError) -> TriggerPoint? {
    guard let first = tokens.first else { return nil }
    let rest = Array(tokens.dropFirst())
    switch first.text.lowercased() {
    case "position":
      guard rest.count == 2, rest[0].text == ">=" else {
        throw CommandParseError(
          column: rest.first?.column ?? first.column, message: "expected 'position >= SECONDS' (or end-SECONDS)")
      }
      return try position(rest[1])
    case "track":
      guard rest.count == 1 else {
        throw CommandParseError(column: first.column, message: "expected 'track N'")
      }
      return .track(try trackNumber(rest[0]))
    default:
      return nil
    }
  }

  private static func position(_ token: CommandTokenizer.Token) throws(CommandParseError) -> TriggerPoint {
    let text = token.text.lowercased()
    guard text.hasPrefix("end-") else {
      return .position(try ScriptParser.seconds(token, what: "a position in seconds or end-SECONDS"))
    }
    guard let offset = CommandParser.decimal(Substring(text.dropFirst(4)), signed: false), offset <= 86_400 else {
      throw CommandParseError(
        column: token.column, message: "expected seconds before the end (end-2), found '\(token.text.prefix(40))'")
    }
    return .beforeEnd(offset)
  }

  private static func trackNumber(_ token: CommandTokenizer.Token) throws(CommandParseError) -> Int {
    guard let number = Int(token.text), number >= 1 else {
      throw CommandParseError(
        column: token.column, message: "expected a track number from 1, found '\(token.text.prefix(40))'")
    }
    return number
  }

  /// The player command a trigger sends; not another `at`, `on`, `wait` or `expect`.
  private static func command(_ tokens: [CommandTokenizer.Token]) throws(CommandParseError) -> PlayerCommand {
    let name = tokens[0]
    return try CommandParser.parse(name: name.text, nameColumn: name.column, arguments: Array(tokens.dropFirst()))
  }
}
