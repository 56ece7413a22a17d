import Foundation

/// A private folder for inputs that cannot live in git (a FIFO, an unreadable file, a file changed while it
/// plays), removed when the test ends.
final class ScratchDirectory {
  let path: String

  /// Creates the folder; `name` may contain spaces and non-ASCII characters.
  init(_ name: String = "splay-scratch") throws {
    path = FileManager.default.temporaryDirectory.path + "/\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    // 0755: a test may run splay as another user, who must be able to reach the files inside.
    try FileManager.default.createDirectory(
      atPath: path, withIntermediateDirectories: true,
      attributes: [
        .posixPermissions: 0o755
      ])
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// A copy of a fixture under `name`, returning its path.
  func copy(_ fixture: String, as name: String) throws -> String {
    let target = path + "/" + name
    try FileManager.default.copyItem(atPath: Splay.fixture(fixture), toPath: target)
    return target
  }
}
