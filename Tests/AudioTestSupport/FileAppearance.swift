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
}
