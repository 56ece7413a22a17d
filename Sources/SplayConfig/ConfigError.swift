/// Why the config file cannot be used: a line of it that does not parse or names a key or value splay does not
/// take, or the file cannot be read. splay exits 2 with ``description`` as its one-line message.
package struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file.
  package var path: String
  /// The line the problem is on, 1-based; nil when the file as a whole cannot be read.
  package var line: Int?
  /// What is wrong, for a person.
  package var message: String

  /// An error at `line` of `path`.
  package init(path: String, line: Int?, message: String) {
    self.path = path
    self.line = line
    self.message = message
  }

  /// `PATH:LINE: MESSAGE`, as compilers name a place in a file.
  package var description: String {
    line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)"
  }
}
