import Glibc

/// Where the live view reads keys: standard input when it is the terminal, otherwise the controlling
/// terminal itself, so that `find ... | splay play -` still has a keyboard.
enum TerminalInput {
  /// The descriptor to read keys from and set raw mode on; -1 when the process has no terminal.
  static let descriptor: Int32 = {
    if isatty(STDIN_FILENO) == 1 { return STDIN_FILENO }
    return open("/dev/tty", O_RDONLY | O_CLOEXEC | O_NOCTTY)
  }()
}
