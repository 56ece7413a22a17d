import PlayerCore

/// Parses playback scripts: the command vocabulary of ``CommandParser`` plus `wait` and `expect` lines.
///
/// The whole script is parsed before anything runs, so a typo on line 40 is reported before any audio starts.
public enum ScriptParser {
  /// The longest line accepted, in bytes.
  public static let maximumLineLength = 64 * 1024
  /// The most lines a script may have.
  public static let maximumLines = 100_000
  /// Statuses that `wait until` and `expect state` know.
  public static let statusNames = ["idle", "playing", "paused", "stopped", "ended", "failed"]
  /// Error codes that `expect error` knows.
  public static let errorCodes = [
    "file-not-found", "permission-denied", "not-a-file", "no-tracks", "unsupported-format", "stream-failed",
    "output-unavailable",
    "output-lost",
    "output-failed", "invalid-state", "timeout", "cancelled", "limit-exceeded",
  ]

  /// A parse error: the line, and the column within it.
  public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The script's name.
    public var script: String
    /// The 1-based line.
    public var line: Int
    /// The underlying error, with its column.
    public var error: CommandParseError

    /// `SCRIPT:LINE:COLUMN: message`, the form compilers use, so editors can jump to it.
    public var description: String {
      error.column > 0 ? "\(script):\(line):\(error.column): \(error.message)" : "\(script):\(line): \(error.message)"
    }
  }

  /// Parses a whole script, whose words see `variables` defined (besides its own `let` lines). `include FILE`
  /// lines read from `source`, FILE taken from `directory` (the script's folder); without a source they are
  /// an error.
  public static func parse(
    _ text: String, name: String, variables: ScriptVariables = ScriptVariables(), source: ScriptSource? = nil,
    directory: String = ""
  ) throws(Failure) -> PlaybackScript {
    var builder = ScriptBuilder(variables: variables)
    try parseLines(text, name: name, directory: directory, source: source, chain: [name], into: &builder)
    return try builder.finish(name: name)
  }

  /// Takes the lines of `text` (the script `name`, in `directory`) into `builder`, reading what they include;
  /// `chain` is the scripts that include this one, and itself.
  private static func parseLines(
    _ text: String, name: String, directory: String, source: ScriptSource?, chain: [String],
    into builder: inout ScriptBuilder
  ) throws(Failure) {
    var lineNumber = 0
    // Split on the newline byte, not on Characters: "\r\n" is one Character, so a Windows-edited script split
    // on "\n" was one long line that failed on its first "\r".
    for bytes in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      let raw = Substring(bytes)
      lineNumber += 1
      guard lineNumber <= maximumLines else {
        throw Failure(
          script: name, line: lineNumber,
          error: CommandParseError(column: 0, message: "the script is longer than \(maximumLines) lines"))
      }
      var line = raw
      if line.hasSuffix("\r") { line = line.dropLast() }
      guard line.utf8.count <= maximumLineLength else {
        throw Failure(
          script: name, line: lineNumber,
          error: CommandParseError(column: 0, message: "the line is longer than \(maximumLineLength) bytes"))
      }
      do {
        let code = stripComment(line)
        let text = String(code.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        try builder.take(try CommandTokenizer.tokenize(code), line: lineNumber, text: text)
      } catch {
        throw Failure(script: name, line: lineNumber, error: error)
      }
      guard let include = builder.takeInclude() else { continue }
      func failure(_ message: String) -> Failure {
        Failure(script: name, line: lineNumber, error: CommandParseError(column: include.column, message: message))
      }
      guard let source else { throw failure("include reads files: run the script from a file") }
      guard chain.count < ScriptSource.maximumDepth else {
        throw failure("includes nest deeper than \(ScriptSource.maximumDepth) scripts")
      }
      let included: ScriptSource.Included
      switch source.include(include.path, from: directory) {
      case .success(let read): included = read
      case .failure(let error): throw failure("cannot include \(include.path) (\(error.reason))")
      }
      guard !chain.contains(included.name) else {
        throw failure("include goes round: \((chain + [included.name]).joined(separator: " -> "))")
      }
      let outer = builder.beginInclude(included.name)
      let firstStep = builder.steps.count
      try parseLines(
        included.text, name: included.name, directory: included.directory, source: source,
        chain: chain + [included.name], into: &builder)
      try builder.endInclude(outer, name: included.name, firstStep: firstStep, directory: included.directory)
    }
  }

  /// The step that one line's words (`tokens`, not empty) say.
  static func parseAction(_ tokens: [CommandTokenizer.Token]) throws(CommandParseError) -> ScriptAction {
    let first = tokens[0]
    switch first.text.lowercased() {
    case "wait":
      return try parseWait(tokens)
    case "expect":
      return try parseExpect(tokens)
    case "at":
      return try TriggerParser.parseAt(tokens)
    case "on":
      return try TriggerParser.parseOn(tokens)
    default:
      do throws(CommandParseError) {
        return .command(
          try CommandParser.parse(name: first.text, nameColumn: first.column, arguments: Array(tokens.dropFirst())))
      } catch  where error.column == first.column && error.message.hasPrefix("unknown command") {
        // A script has words of its own besides the command vocabulary: the list a typo gets names them too.
        let names =
          (CommandParser.commandNames
          + ["wait", "expect", "at", "on", "let", "check", "expect-failure", "include"])
          .joined(separator: ", ")
        throw CommandParseError(
          column: first.column, message: "unknown command '\(first.text.prefix(40))' (expected one of: \(names))")
      }
    }
  }

  /// Drops a `#` comment that is not inside quotes. Scans Unicode scalars, as ``CommandTokenizer`` does, so
  /// that both agree on where quotes are.
  static func stripComment(_ line: Substring) -> Substring {
    var quote: Unicode.Scalar?
    var escaping = false
    for index in line.unicodeScalars.indices {
      let ch = line.unicodeScalars[index]
      if let q = quote {
        if escaping {
          escaping = false
        } else if q == "\"" && ch == "\\" {
          escaping = true
        } else if ch == q {
          quote = nil
        }
      } else if ch == "\"" || ch == "'" {
        quote = ch
      } else if ch == "#" {
        return Substring(line.unicodeScalars[..<index])
      }
    }
    return line
  }

  private static func parseWait(_ tokens: [CommandTokenizer.Token]) throws(CommandParseError) -> ScriptAction {
    guard tokens.count >= 2 else {
      throw CommandParseError(
        column: tokens[0].column, message: "wait needs seconds (wait 1.5) or a state (wait until ended)")
    }
    if tokens[1].text.lowercased() == "until" {
      guard tokens.count >= 3 else {
        throw CommandParseError(
          column: tokens[1].column,
          message: "wait until needs a state (\(statusNames.joined(separator: ", "))), position >= SECONDS or track N")
      }
      if let point = try TriggerParser.parseWaitPoint(tokens[2...]) { return .waitFor(point) }
      let status = try statusName(tokens[2])
      var timeout = 30.0
      if tokens.count > 3 {
        guard tokens[3].text.lowercased() == "timeout", tokens.count == 5 else {
          throw CommandParseError(
            column: tokens[3].column, message: "expected 'timeout SECONDS', found '\(tokens[3].text.prefix(40))'")
        }
        timeout = try seconds(tokens[4], what: "a timeout in seconds")
      }
      return .waitUntil(status: status, timeout: timeout)
    }
    guard tokens.count == 2 else {
      throw CommandParseError(
        column: tokens[2].column, message: "wait takes one number of seconds, found '\(tokens[2].text.prefix(40))'")
    }
    return .wait(seconds: try seconds(tokens[1], what: "seconds (wait 1.5)"))
  }

  private static func parseExpect(_ tokens: [CommandTokenizer.Token]) throws(CommandParseError) -> ScriptAction {
    guard tokens.count >= 3 else {
      throw CommandParseError(
        column: tokens[0].column,
        message: "expect needs what to check: state, position, volume, track, title, audio or error, and a value")
    }
    let what = tokens[1]
    let value = tokens[2]
    func noMore(_ count: Int) throws(CommandParseError) {
      guard tokens.count > count else { return }
      throw CommandParseError(column: tokens[count].column, message: "unexpected '\(tokens[count].text.prefix(40))'")
    }
    switch what.text.lowercased() {
    case "state":
      try noMore(3)
      return .expect(.state(try statusName(value)))
    case "position":
      let position = try seconds(value, what: "a position in seconds")
      var tolerance = 0.05
      if tokens.count > 3 {
        guard ["±", "+-", "+/-"].contains(tokens[3].text), tokens.count == 5 else {
          throw CommandParseError(
            column: tokens[3].column, message: "expected '± TOLERANCE', found '\(tokens[3].text.prefix(40))'")
        }
        tolerance = try seconds(tokens[4], what: "a tolerance in seconds")
      }
      return .expect(.position(position, tolerance: tolerance))
    case "audio":
      return .expect(.audio(try parseAudio(tokens)))
    case "volume":
      try noMore(3)
      var text = Substring(value.text)
      if text.hasSuffix("%") { text = text.dropLast() }
      guard let level = Int(text), (0...100).contains(level) else {
        throw CommandParseError(
          column: value.column, message: "expected a volume 0-100, found '\(value.text.prefix(40))'")
      }
      return .expect(.volume(level))
    case "track":
      try noMore(3)
      guard let index = Int(value.text), index >= 1 else {
        throw CommandParseError(
          column: value.column, message: "expected a track number from 1, found '\(value.text.prefix(40))'")
      }
      return .expect(.track(index))
    case "title":
      try noMore(3)
      return .expect(.title(value.text))
    case "error":
      try noMore(3)
      let code = value.text.lowercased()
      guard errorCodes.contains(code) else {
        throw CommandParseError(
          column: value.column,
          message:
            "unknown error code '\(value.text.prefix(40))' (expected one of: \(errorCodes.joined(separator: ", ")))")
      }
      return .expectError(code: code)
    default:
      throw CommandParseError(
        column: what.column,
        message:
          "cannot expect '\(what.text.prefix(40))' (expected state, position, volume, track, title, audio or error)")
    }
  }

  /// `expect audio playing [SECONDS] [± TOLERANCE]` or `expect audio silent`; a tolerance may say `ms` or `s`.
  private static func parseAudio(_ tokens: [CommandTokenizer.Token]) throws(CommandParseError) -> AudioCheck {
    let kind = tokens[2]
    switch kind.text.lowercased() {
    case "silent":
      guard tokens.count == 3 else {
        throw CommandParseError(column: tokens[3].column, message: "unexpected '\(tokens[3].text.prefix(40))'")
      }
      return .silent
    case "playing":
      var rest = tokens.dropFirst(3)
      var from: Double?
      if let first = rest.first, !Self.plusMinus.contains(first.text) {
        from = try seconds(first, what: "a position in seconds")
        rest = rest.dropFirst()
      }
      var tolerance = 0.001
      if let sign = rest.first {
        guard Self.plusMinus.contains(sign.text), rest.count == 2, let value = rest.last else {
          throw CommandParseError(
            column: sign.column, message: "expected '± TOLERANCE', found '\(sign.text.prefix(40))'")
        }
        tolerance = try duration(value, what: "a tolerance (1ms, 0.002 or 0.002s)")
      }
      return .playing(from: from, tolerance: tolerance)
    default:
      throw CommandParseError(
        column: kind.column, message: "expected 'audio playing' or 'audio silent', found '\(kind.text.prefix(40))'")
    }
  }

  private static let plusMinus: Set<String> = ["±", "+-", "+/-"]

  /// Seconds, or milliseconds with `ms`; `s` may follow seconds.
  static func duration(_ token: CommandTokenizer.Token, what: String) throws(CommandParseError) -> Double {
    var text = Substring(token.text)
    var scale = 1.0
    if text.hasSuffix("ms") {
      text = text.dropLast(2)
      scale = 0.001
    } else if text.hasSuffix("s") {
      text = text.dropLast()
    }
    guard let value = CommandParser.decimal(text, signed: false), value <= 86_400 else {
      throw CommandParseError(column: token.column, message: "expected \(what), found '\(token.text.prefix(40))'")
    }
    return value * scale
  }

  static func statusName(_ token: CommandTokenizer.Token) throws(CommandParseError) -> String {
    let name = token.text.lowercased()
    guard statusNames.contains(name) else {
      throw CommandParseError(
        column: token.column,
        message: "unknown state '\(token.text.prefix(40))' (expected one of: \(statusNames.joined(separator: ", ")))")
    }
    return name
  }

  static func seconds(_ token: CommandTokenizer.Token, what: String) throws(CommandParseError) -> Double {
    guard let value = CommandParser.decimal(Substring(token.text), signed: false), value <= 86_400 else {
      throw CommandParseError(
        column: token.column, message: "expected \(what) up to 86400, found '\(token.text.prefix(40))'")
    }
    return value
  }
}
