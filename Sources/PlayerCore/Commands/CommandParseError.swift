/// Why a command line did not parse, and where.
public struct CommandParseError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
  /// The 1-based column (in characters) of the offending word or character; 0 for the line as a whole.
  public var column: Int
  /// What was expected and what was found, in one line.
  public var message: String

  /// Creates a parse error.
  public init(column: Int, message: String) {
    self.column = column
    self.message = message
  }

  /// `column N: message`, or just the message when the column is unknown.
  public var description: String { column > 0 ? "column \(column): \(message)" : message }
}
