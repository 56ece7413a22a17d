/// The exit codes of `splay`, documented in `splay --help` and the README.
enum ExitStatus: Int32 {
  /// Everything succeeded.
  case success = 0
  /// A command or an expectation failed.
  case failed = 1
  /// The command line (or a script) did not parse.
  case usage = 2
  /// A file could not be read or decoded.
  case fileError = 3
  /// The audio output is unavailable or was lost.
  case outputError = 4
}

/// An error that ends `splay` with a message on stderr and a documented exit status.
struct CLIError: Error, CustomStringConvertible {
  /// The one-line message, without the `splay:` prefix.
  var message: String
  /// The exit status.
  var status: ExitStatus

  var description: String { message }
}
