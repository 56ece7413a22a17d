import Foundation

/// Waiting for a file another process makes (a socket a server binds, a file a shell writes): polled, since
/// nothing tells this process when another one creates a file.
public enum FileAppearance {
  /// Whether a file is at `path` within `seconds`, looked for every 10 ms.
  @discardableResult
  public static func wait(for path: String, within seconds: Double = 5) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !FileManager.default.fileExists(atPath: path) {
      guard Date() < deadline else { return false }
      usleep(10_000)
    }
    return true
  }

  /// What another process wrote to `path` once it ends with a newline, within `seconds`; nil if it did not. A
  /// shell's `cmd > path` makes the file before `cmd` writes: the file alone may still be empty.
  public static func lines(at path: String, within seconds: Double = 5) -> String? {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
      if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") { return text }
      guard Date() < deadline else { return nil }
      usleep(10_000)
    }
  }
}
