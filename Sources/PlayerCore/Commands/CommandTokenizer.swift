/// Splits a command line into words, the way a shell user expects: blanks separate words, `"…"` and `'…'`
/// group them, and inside double quotes `\"` and `\\` escape.
///
/// It works on Unicode scalars, not Characters: a blank or a quote followed by a combining mark is one Swift
/// Character (`"` + U+0656), and a tokenizer that compared Characters did not see the quote in it, so a
/// printed command did not parse back to itself (found by the command-parser fuzz target).
public enum CommandTokenizer {
  /// One word and the 1-based column where it started.
  public struct Token: Equatable, Sendable {
    /// The word with quotes removed.
    public var text: String
    /// The 1-based column (in Unicode scalars, which are characters for text without combining marks)
    /// where the word began.
    public var column: Int

    /// The word `text` that began at `column`.
    public init(text: String, column: Int) {
      self.text = text
      self.column = column
    }
  }

  /// Splits `line` into tokens, or throws a ``CommandParseError`` naming the column of the problem.
  ///
  /// Control characters other than tab are refused, so binary garbage gets a precise error.
  public static func tokenize(_ line: some StringProtocol) throws(CommandParseError) -> [Token] {
    var tokens: [Token] = []
    var current = String.UnicodeScalarView()
    var inToken = false
    var start = 0
    var quote: Unicode.Scalar?
    var quoteColumn = 0
    var escaping = false
    var column = 0
    for ch in line.unicodeScalars {
      column += 1
      if let q = quote {
        if escaping {
          // An escaped control character is still one (found by fuzzing: `"\<U+0018>"` was let through).
          try checkPrintable(ch, column: column)
          current.append(ch)
          escaping = false
        } else if q == "\"" && ch == "\\" {
          escaping = true
        } else if ch == q {
          quote = nil
        } else {
          try checkPrintable(ch, column: column)
          current.append(ch)
        }
        continue
      }
      if ch == " " || ch == "\t" {
        if inToken {
          tokens.append(Token(text: String(current), column: start))
          current = String.UnicodeScalarView()
          inToken = false
        }
        continue
      }
      try checkPrintable(ch, column: column)
      if !inToken {
        inToken = true
        start = column
      }
      if ch == "\"" || ch == "'" {
        quote = ch
        quoteColumn = column
      } else {
        current.append(ch)
      }
    }
    if quote != nil {
      throw CommandParseError(column: quoteColumn, message: "unterminated quote")
    }
    if inToken { tokens.append(Token(text: String(current), column: start)) }
    return tokens
  }

  private static func checkPrintable(_ scalar: Unicode.Scalar, column: Int) throws(CommandParseError) {
    guard scalar.value < 0x20 || scalar.value == 0x7F, scalar != "\t" else { return }
    throw CommandParseError(column: column, message: "control character U+\(hex(scalar.value)) is not allowed")
  }

  private static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  /// Quotes a word when it would not survive tokenizing as is (blanks, quotes, backslashes, empty).
  public static func quoteIfNeeded(_ word: String) -> String {
    let needsQuotes =
      word.isEmpty || word.unicodeScalars.contains { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "'" || $0 == "\\" }
    guard needsQuotes else { return word }
    var quoted = String.UnicodeScalarView()
    quoted.append("\"")
    for scalar in word.unicodeScalars {
      if scalar == "\"" || scalar == "\\" { quoted.append("\\") }
      quoted.append(scalar)
    }
    quoted.append("\"")
    return String(quoted)
  }
}
