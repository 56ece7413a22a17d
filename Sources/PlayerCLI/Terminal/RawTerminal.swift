import Dispatch
import FoundationEssentials
import Futures
import Glibc

/// Puts the terminal in raw mode and guarantees it is restored: on `restore()`, on SIGINT/SIGTERM/SIGHUP, and
/// at exit.
final class RawTerminal: Sendable {
  private struct Saved: @unchecked Sendable {
    // termios is a plain C struct of integers; it is only copied, never shared by reference.
    var attributes: termios
  }

  private static let saved = Lock<Saved?>(nil)

  /// Enters raw mode (no echo, no line buffering, no signal keys: Ctrl-C arrives as a byte) and hides the cursor.
  static func enter() {
    var attributes = termios()
    guard tcgetattr(TerminalInput.descriptor, &attributes) == 0 else { return }
    saved.withLock { $0 = Saved(attributes: attributes) }
    var raw = attributes
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
    withUnsafeMutablePointer(to: &raw.c_cc) { pointer in
      pointer.withMemoryRebound(to: cc_t.self, capacity: Int(NCCS)) { cc in
        cc[Int(VMIN)] = 1
        cc[Int(VTIME)] = 0
      }
    }
    tcsetattr(TerminalInput.descriptor, TCSAFLUSH, &raw)
    write("\u{1B}[?25l\u{1B}[2J\u{1B}[H")
    atexit { RawTerminal.restore() }
  }

  /// Leaves raw mode and shows the cursor again. Idempotent; safe from a signal handler's dispatch source.
  static func restore() {
    guard
      let saved = saved.withLock({ s -> Saved? in
        defer { s = nil }
        return s
      })
    else { return }
    var attributes = saved.attributes
    tcsetattr(TerminalInput.descriptor, TCSAFLUSH, &attributes)
    write("\u{1B}[?25h\r\n")
  }

  /// Writes straight to the terminal, unbuffered.
  static func write(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeMutableBytes {
        Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
      }
      if n <= 0 { break }
      offset += n
    }
  }
}
