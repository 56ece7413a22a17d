#if canImport(Glibc)
  import Glibc
#endif

/// The folders (or files) the library holds, kept as a text file of absolute paths, one per line, written
/// whole to a temporary file and renamed over the old one, so that an interrupted write leaves one list or the
/// other.
public struct LibraryRoots: Sendable {
  /// The file.
  public let path: String

  /// The list kept at `path`.
  public init(path: String) {
    self.path = path
  }

  /// The roots, in the order they were added; none when the file does not exist.
  public func read() throws(LibraryError) -> [String] {
    guard let text = try FileText.read(path) else { return [] }
    return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
  }

  /// Replaces the list.
  public func write(_ roots: [String]) throws(LibraryError) {
    try FileText.replace(path, with: roots.map { $0 + "\n" }.joined())
  }

  /// `path` made absolute against `workingDirectory`, with `.`, `..` and repeated or trailing slashes gone
  /// (symlinks kept: a root is what the user named).
  public static func normalize(_ path: String, workingDirectory: String) -> String {
    let absolute = path.hasPrefix("/") ? path : workingDirectory + "/" + path
    var parts: [Substring] = []
    for part in absolute.split(separator: "/", omittingEmptySubsequences: true) {
      switch part {
      case ".": continue
      case "..": _ = parts.popLast()
      default: parts.append(part)
      }
    }
    return "/" + parts.joined(separator: "/")
  }
}

/// Reading and atomically replacing small text files.
enum FileText {
  /// The file's text; nil when it does not exist.
  static func read(_ path: String) throws(LibraryError) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { return nil }
      throw .file(path, String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .file(path, String(cString: strerror(errno)))
      }
      if count == 0 { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Writes `text` to a temporary file beside `path`, then renames it over `path`.
  static func replace(_ path: String, with text: String) throws(LibraryError) {
    try makeFolder(of: path)
    let temporary = path + ".tmp-\(getpid())"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw .file(temporary, String(cString: strerror(errno))) }
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        let reason = String(cString: strerror(errno))
        close(descriptor)
        unlink(temporary)
        throw .file(path, reason)
      }
      bytes = bytes.dropFirst(count)
    }
    let synced = fsync(descriptor) == 0
    close(descriptor)
    guard synced, rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw .file(path, reason)
    }
  }

  /// Creates the folder that holds `path`, and its parents.
  static func makeFolder(of path: String) throws(LibraryError) {
    var folder = ""
    for part in path.split(separator: "/").dropLast() {
      folder += "/" + part
      if mkdir(folder, 0o755) != 0 && errno != EEXIST { throw .file(folder, String(cString: strerror(errno))) }
    }
  }
}
