import PlayerCore

/// A script's variables: `let NAME = VALUE` defines one, `$NAME` or `${NAME}` in a later word is replaced by its
/// value (`$$` is a `$`). `splay run --set NAME=VALUE` and `splay check` (`$FILE`) define some before the
/// first line. Replaced in words, after quotes are removed, so a value with blanks stays one word.
public struct ScriptVariables: Sendable, Equatable {
  private var values: [String: String]

  /// Variables with `values` defined.
  public init(_ values: [String: String] = [:]) {
    self.values = values
  }

  /// Whether `name` is a variable's name: a letter or `_`, then letters, digits and `_`.
  public static func isName(_ name: some StringProtocol) -> Bool {
    guard let first = name.unicodeScalars.first, isLetter(first) else { return false }
    return name.unicodeScalars.allSatisfy(isNameScalar)
  }

  private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
  }

  private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
    isLetter(scalar) || ("0"..."9").contains(scalar)
  }

  /// Defines (or redefines) `name`.
  mutating func define(_ name: String, as value: String) {
    values[name] = value
  }

  /// `tokens` with every variable replaced; an unknown one or a `$` that starts none is an error at its column.
  func substitute(_ tokens: [CommandTokenizer.Token]) throws(CommandParseError) -> [CommandTokenizer.Token] {
    var result: [CommandTokenizer.Token] = []
    for token in tokens {
      guard token.text.contains("$") else {
        result.append(token)
        continue
      }
      result.append(CommandTokenizer.Token(text: try substitute(token), column: token.column))
    }
    return result
  }

  private func substitute(_ token: CommandTokenizer.Token) throws(CommandParseError) -> String {
    let scalars = Array(token.text.unicodeScalars)
    var out = String.UnicodeScalarView()
    var index = 0
    while index < scalars.count {
      guard scalars[index] == "$" else {
        out.append(scalars[index])
        index += 1
        continue
      }
      let start = index
      index += 1
      if index < scalars.count, scalars[index] == "$" {
        out.append("$")
        index += 1
        continue
      }
      let braced = index < scalars.count && scalars[index] == "{"
      if braced { index += 1 }
      var name = String.UnicodeScalarView()
      while index < scalars.count, Self.isNameScalar(scalars[index]) {
        name.append(scalars[index])
        index += 1
      }
      if braced {
        guard index < scalars.count, scalars[index] == "}" else {
          throw CommandParseError(column: token.column, message: "'${' needs a name and '}' ('$$' is a '$')")
        }
        index += 1
      }
      let key = String(name)
      guard Self.isName(key) else {
        throw CommandParseError(
          column: token.column, message: "'$' needs a variable's name after it at offset \(start) ('$$' is a '$')")
      }
      guard let value = values[key] else {
        let known = values.keys.sorted().joined(separator: ", ")
        throw CommandParseError(
          column: token.column,
          message: "unknown variable '\(key.prefix(40))'"
            + (known.isEmpty ? " (none is defined)" : " (defined: \(known))"))
      }
      out.append(contentsOf: value.unicodeScalars)
    }
    return String(out)
  }
}
