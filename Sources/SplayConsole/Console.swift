import Dispatch
import Glibc

/// Writes to stdout and stderr without buffering surprises: JSON lines are flushed one by one so that a
/// reading program sees each state as it is published. `splay` and `splay-library` both write through it.
public enum Console {
  /// Writes one line to stdout.
  public static func out(_ line: String) {
    write(line + "\n", to: STDOUT_FILENO)
  }

  /// Writes `splay: message` to stderr.
  public static func error(_ message: String) {
    write("splay: " + message + "\n", to: STDERR_FILENO)
  }

  /// Writes a (possibly multi-line) message to stderr as is, ending it with a newline.
  public static func errorText(_ text: String) {
    write(text.hasSuffix("\n") ? text : text + "\n", to: STDERR_FILENO)
  }

  /// Writes `text` to stdout as it is (a NUL-separated list, for example).
  public static func raw(_ text: String) {
    write(text, to: STDOUT_FILENO)
  }

  /// Rewrites the terminal's current line on stderr (a progress line); `nil` clears it.
  public static func status(_ line: String?) {
    write("\r\u{1B}[K" + (line ?? ""), to: STDERR_FILENO)
  }

  /// Writes `bytes` to stdout as they are: a piece of a line that is written in several.
  public static func out(bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { write($0, to: STDOUT_FILENO) }
  }

  private static func write(_ text: String, to fd: Int32) {
    var text = text
    text.withUTF8 { write($0, to: fd) }
  }

  /// Writes all of `bytes` with write(2), unbuffered: each line reaches a reading program as it is written.
  /// A reader that went away (EPIPE) or another failure drops the rest; there is nowhere to report it.
  private static func write(_ bytes: UnsafeBufferPointer<UInt8>, to fd: Int32) {
    var offset = 0
    while offset < bytes.count {
      let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }

  /// True when stdout is a terminal.
  public static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

  /// True when stderr is a terminal, where a progress line belongs.
  public static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

  /// True when stdin is a terminal.
  public static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
}
