import Foundation

/// Writes to stdout and stderr without buffering surprises: JSON lines are flushed one by one so that a
/// reading program sees each state as it is published.
enum Console {
  private static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  /// Writes one line to stdout.
  static func out(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }

  /// Writes `splay: message` to stderr.
  static func error(_ message: String) {
    FileHandle.standardError.write(Data(("splay: " + message + "\n").utf8))
  }

  /// A value as one line of compact JSON.
  static func json(_ value: some Encodable) -> String {
    guard let data = try? encoder.encode(value) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }

  /// True when stdout is a terminal.
  static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

  /// True when stdin is a terminal.
  static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
}

extension FileHandle {
  /// Writes a (possibly multi-line) message to stderr as is.
  static func standardErrorWrite(_ text: String) {
    standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
  }
}
