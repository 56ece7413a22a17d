#if canImport(Glibc)
  import Glibc
#endif

/// Unbuffered writes to stdout and stderr; messages start with `splay:` as the player's do.
enum Output {
  /// Writes one line to stdout.
  static func out(_ line: String) {
    write(line + "\n", to: STDOUT_FILENO)
  }

  /// Writes `text` to stdout as it is.
  static func raw(_ text: String) {
    write(text, to: STDOUT_FILENO)
  }

  /// Writes `splay: message` to stderr.
  static func error(_ message: String) {
    write("splay: " + message + "\n", to: STDERR_FILENO)
  }

  /// Writes a text to stderr as it is, ending it with a newline.
  static func errorText(_ text: String) {
    write(text.hasSuffix("\n") ? text : text + "\n", to: STDERR_FILENO)
  }

  /// Rewrites the terminal's current line on stderr (a progress line); `nil` clears it.
  static func status(_ line: String?) {
    write("\r\u{1B}[K" + (line ?? ""), to: STDERR_FILENO)
  }

  /// Whether stderr is a terminal, where a progress line belongs.
  static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

  private static func write(_ text: String, to fd: Int32) {
    var text = text
    text.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
      }
    }
  }
}
