/// Turns the text form of a command into a ``PlayerCommand``, with an error that names the column and what
/// was expected.
///
/// ```swift
/// try CommandParser.parse("seek +5")          // .seek(.relative(5))
/// try CommandParser.parse("volume 40%")       // .volume(.absolute(40))
/// try CommandParser.parse(#"load "a b.flac" c.mp3"#)
/// ```
public enum CommandParser {
  /// The names `parse` accepts, canonical names first; used in error messages and help.
  public static let commandNames = [
    "load", "enqueue", "play", "pause", "toggle", "stop", "seek", "volume", "mute", "next", "previous", "jump",
    "repeat", "shuffle",
  ]

  /// The longest position a seek may name, in seconds (about 116 days): bigger numbers are typos.
  public static let maximumSeconds = 1e7

  /// Parses one line of text.
  public static func parse(_ line: some StringProtocol) throws(CommandParseError) -> PlayerCommand {
    let tokens = try CommandTokenizer.tokenize(line)
    guard let first = tokens.first else {
      throw CommandParseError(column: 0, message: "expected a command, found an empty line")
    }
    return try parse(name: first.text, nameColumn: first.column, arguments: Array(tokens.dropFirst()))
  }

  /// Parses a command given as a name and already separated arguments (the JSON form).
  public static func parse(name: String, arguments: [String]) throws(CommandParseError) -> PlayerCommand {
    try parse(name: name, nameColumn: 0, arguments: arguments.map { CommandTokenizer.Token(text: $0, column: 0) })
  }

  package static func parse(
    name: String, nameColumn: Int, arguments: [CommandTokenizer.Token]
  ) throws(CommandParseError) -> PlayerCommand {
    func arity(_ count: Int) throws(CommandParseError) {
      guard arguments.count != count else { return }
      if arguments.count > count {
        let extra = arguments[count]
        throw CommandParseError(
          column: extra.column,
          message: "\(name) takes \(count == 0 ? "no arguments" : "\(count) argument"), found '\(extra.text)'")
      }
      throw CommandParseError(column: nameColumn, message: "\(name) needs an argument")
    }
    switch name.lowercased() {
    case "load", "enqueue", "add":
      guard !arguments.isEmpty else {
        throw CommandParseError(column: nameColumn, message: "\(name) needs at least one file")
      }
      if let empty = arguments.first(where: { $0.text.isEmpty }) {
        throw CommandParseError(column: empty.column, message: "expected a file path, found an empty string")
      }
      // Only the JSON form can carry a NUL (the tokenizer refuses control characters); C would cut the path
      // there and open another file than the one named (`/etc/passwd\u{0}.flac`).
      if let nul = arguments.first(where: { $0.text.utf8.contains(0) }) {
        throw CommandParseError(column: nul.column, message: "a file path cannot contain a NUL character")
      }
      let paths = arguments.map(\.text)
      return name.lowercased() == "load" ? .load(paths) : .enqueue(paths)
    case "play", "resume":
      try arity(0)
      return .play
    case "pause":
      try arity(0)
      return .pause
    case "toggle":
      try arity(0)
      return .toggle
    case "stop":
      try arity(0)
      return .stop
    case "next":
      try arity(0)
      return .next
    case "previous", "prev":
      try arity(0)
      return .previous
    case "seek":
      try arity(1)
      return .seek(try seekTarget(arguments[0]))
    case "volume", "vol":
      try arity(1)
      return .volume(try volumeChange(arguments[0]))
    case "mute":
      guard let token = arguments.first else { return .mute(nil) }
      try arity(1)
      switch token.text.lowercased() {
      case "on", "true", "1": return .mute(true)
      case "off", "false", "0": return .mute(false)
      case "toggle": return .mute(nil)
      default:
        throw CommandParseError(
          column: token.column, message: "expected on, off or toggle, found '\(token.text.prefix(40))'")
      }
    case "unmute":
      try arity(0)
      return .mute(false)
    case "jump":
      try arity(1)
      let token = arguments[0]
      guard let n = Int(token.text), n >= 1, n <= 1_000_000 else {
        throw CommandParseError(
          column: token.column, message: "expected a track number from 1 (jump 2), found '\(token.text)'")
      }
      return .jump(toIndex: n - 1)
    case "repeat":
      try arity(1)
      let token = arguments[0]
      guard let mode = RepeatMode(rawValue: token.text.lowercased()) else {
        throw CommandParseError(
          column: token.column, message: "expected off, all or one, found '\(token.text.prefix(40))'")
      }
      return .repeatMode(mode)
    case "shuffle", "random":
      try arity(1)
      let token = arguments[0]
      switch token.text.lowercased() {
      case "on", "true", "1": return .shuffle(true)
      case "off", "false", "0": return .shuffle(false)
      default:
        throw CommandParseError(column: token.column, message: "expected on or off, found '\(token.text.prefix(40))'")
      }
    default:
      throw CommandParseError(
        column: nameColumn,
        message: "unknown command '\(name.prefix(40))' (expected one of: \(commandNames.joined(separator: ", ")))")
    }
  }

  /// Reads a position as `seek` does (`90`, `12.5`, `1:30`, `1:02:03`, `50%`, `+5`, `-5`), so that the command
  /// line's `--start` takes what scripts and the socket take.
  public static func seekTarget(_ text: String) throws(CommandParseError) -> SeekTarget {
    try seekTarget(CommandTokenizer.Token(text: text, column: 1))
  }

  /// Reads a level as `volume` does (`40`, `40%`, `+5`, `-5`), for the command line's `--volume`.
  public static func volumeChange(_ text: String) throws(CommandParseError) -> VolumeChange {
    try volumeChange(CommandTokenizer.Token(text: text, column: 1))
  }

  static func seekTarget(_ token: CommandTokenizer.Token) throws(CommandParseError) -> SeekTarget {
    let text = token.text
    let expected =
      "expected seconds (12.5), a step (+5, -5), a time (1:30) or a percentage (50%), found '\(text.prefix(40))'"
    if text.hasSuffix("%") {
      guard let p = decimal(text.dropLast(), signed: false), p <= 100 else {
        throw CommandParseError(column: token.column, message: expected + " (percent is 0-100)")
      }
      return .percent(p)
    }
    if text.contains(":") {
      let parts = text.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count == 2 || parts.count == 3 else {
        throw CommandParseError(column: token.column, message: expected)
      }
      var total = 0.0
      for (i, part) in parts.enumerated() {
        let isLast = i == parts.count - 1
        guard let v = decimal(part, signed: false), isLast || v == v.rounded(), i == 0 || v < 60 else {
          throw CommandParseError(column: token.column, message: expected)
        }
        total = total * 60 + v
      }
      guard total <= maximumSeconds else { throw CommandParseError(column: token.column, message: expected) }
      return .absolute(total)
    }
    let signed = text.hasPrefix("+") || text.hasPrefix("-")
    guard let value = decimal(signed ? text.dropFirst() : Substring(text), signed: false), value <= maximumSeconds
    else {
      throw CommandParseError(column: token.column, message: expected)
    }
    if signed { return .relative(text.hasPrefix("-") ? -value : value) }
    return .absolute(value)
  }

  static func volumeChange(_ token: CommandTokenizer.Token) throws(CommandParseError) -> VolumeChange {
    var text = Substring(token.text)
    let expected = "expected a level 0-100 (40, 40%) or a step (+5, -5), found '\(token.text.prefix(40))'"
    if text.hasSuffix("%") { text = text.dropLast() }
    let sign = text.first.flatMap { $0 == "+" || $0 == "-" ? $0 : nil }
    if sign != nil { text = text.dropFirst() }
    guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit), text.count <= 3, let value = Int(text), value <= 100 else {
      throw CommandParseError(column: token.column, message: expected)
    }
    switch sign {
    case "+": return .relative(value)
    case "-": return .relative(-value)
    default: return .absolute(value)
    }
  }

  /// A plain decimal number (`12`, `12.5`, `.5`): no exponents, no `nan`/`inf`, no hex, at most 30 characters.
  package static func decimal(_ text: Substring, signed: Bool) -> Double? {
    guard !text.isEmpty, text.count <= 30 else { return nil }
    var sawDigit = false
    var sawDot = false
    for ch in text {
      if ch.isASCIIDigit {
        sawDigit = true
      } else if ch == "." && !sawDot {
        sawDot = true
      } else {
        return nil
      }
    }
    guard sawDigit, let value = Double(String(text)), value.isFinite else { return nil }
    return value
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// The shortest decimal text for `value` that ``CommandParser`` reads back as the same number where it can
/// (no exponent form, which the parser refuses; values below a nanosecond are rounded).
///
/// `package`, not API: ControlProtocol turns a JSON number argument into text with it, so that the socket reads a
/// number as `PlayerCommand`'s `Codable` conformance does.
package func decimalText(_ value: Double) -> String {
  var text = String(value)
  // Far beyond any number a command takes, and beyond Int64 below: keep the exponent form, which the parser
  // refuses with a message quoting it. (`{"command": "volume", "args": [-1e308]}` crashed `splay serve` here.)
  if text.contains("e"), !(abs(value) < 1e15) { return text }
  if text.contains("e") {
    let scaled = (abs(value) * 1e9).rounded()
    let whole = Int64(scaled / 1e9)
    var frac = String(Int64(scaled.truncatingRemainder(dividingBy: 1e9)))
    frac = String(repeating: "0", count: 9 - frac.count) + frac
    while frac.hasSuffix("0") { frac.removeLast() }
    text = (value < 0 ? "-" : "") + String(whole) + (frac.isEmpty ? "" : "." + frac)
  }
  if text.hasSuffix(".0") { text.removeLast(2) }
  return text
}
