#if canImport(Glibc)
  import Glibc
#endif

/// Reads a small text file whole.
enum TextFile {
  /// The file's text, nil when there is none this user can reach (a home another user's `sudo -u` cannot enter
  /// has none either); an error naming it when it is there but cannot be read, or is not UTF-8.
  static func read(_ path: String) throws(ConfigError) -> String? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw ConfigError(path: path, line: nil, message: "cannot read it: \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { break }
      guard count > 0 else {
        if errno == EINTR { continue }
        throw ConfigError(path: path, line: nil, message: "cannot read it: \(String(cString: strerror(errno)))")
      }
      bytes += chunk[0..<count]
      guard bytes.count <= 1_048_576 else { throw ConfigError(path: path, line: nil, message: "larger than 1 MiB") }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw ConfigError(path: path, line: nil, message: "not UTF-8 text")
    }
    return text
  }
}
