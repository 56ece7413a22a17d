import Glibc

/// Reads a whole file or standard input into memory, with the system's reason when it cannot, and splits
/// folder names off paths (splay links FoundationEssentials only, which has no `FileHandle` or `NSString`).
public enum FileContents {
  /// Why a read failed, in words: "no such file", "permission denied", "is a directory"...
  public struct ReadError: Error {
    /// The reason, in words.
    public let reason: String

    init(reason: String) {
      self.reason = reason
    }

    init(errno code: Int32) {
      reason = code == ENOENT ? "no such file" : String(cString: strerror(code)).lowercased()
    }
  }

  /// The folder part of `path` (what `NSString.deletingLastPathComponent` gives): "" for a bare name, "/"
  /// for a file at the root.
  public static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    let folder = String(path[..<slash])
    return folder.isEmpty ? "/" : folder
  }

  /// The bytes of the file at `path`; more than `limit` bytes is an error (a playlist is not a gigabyte).
  public static func read(path: String, limit: Int = .max) throws(ReadError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw ReadError(errno: errno) }
    defer { close(fd) }
    return try readAll(fd, limit: limit)
  }

  /// Everything standard input holds, up to its end.
  public static func readStandardInput(limit: Int = .max) throws(ReadError) -> [UInt8] {
    try readAll(STDIN_FILENO, limit: limit)
  }

  private static func readAll(_ fd: Int32, limit: Int) throws(ReadError) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count == 0 { return bytes }
      if count < 0 {
        if errno == EINTR { continue }
        throw ReadError(errno: errno)
      }
      bytes.append(contentsOf: chunk[0..<count])
      if bytes.count > limit { throw ReadError(reason: "larger than \(limit >> 20) MiB") }
    }
  }
}
