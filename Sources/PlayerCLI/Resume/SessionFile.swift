import FoundationEssentials
import Glibc

/// `state.json`: where a session is kept (`$XDG_STATE_HOME/splay/`, else `~/.local/state/splay/`), written so
/// that a process killed at any moment leaves the old file or the new one, never a torn one (a temporary file,
/// fsync, rename, fsync of the folder), and read back with what was wrong with it said in one line.
struct SessionFile: Sendable {
  /// The file.
  let path: String

  /// The file named `name` in the state folder for `environment`; nil without a home to put it in.
  init?(name: String, environment: [String: String]) {
    if let base = environment["XDG_STATE_HOME"], base.hasPrefix("/") {
      path = base + "/splay/" + name
    } else if let home = environment["HOME"], home.hasPrefix("/") {
      path = home + "/.local/state/splay/" + name
    } else {
      return nil
    }
  }

  /// What reading found.
  enum Reading: Equatable {
    /// No file: nothing was saved.
    case none
    case session(SavedSession)
    /// The file was not a session (torn by another program, edited, a newer version): it was moved aside to
    /// `state.json.bad`, and this says so.
    case setAside(String)
  }

  /// Reads the session; a file that is not one is moved aside, so that the next save does not lose it.
  func read() -> Reading {
    removeStaleTemporaries()
    guard let data = FileManager.default.contents(atPath: path) else { return .none }
    if let session = try? JSONDecoder().decode(SavedSession.self, from: data), session.isPlausible {
      return .session(session)
    }
    let aside = path + ".bad"
    _ = rename(path, aside)
    return .setAside("\(path): not a saved session (kept as \(aside)); starting empty")
  }

  /// Writes `session` in place of the file, atomically; returns why it could not, or nil.
  func write(_ session: SavedSession) -> String? {
    guard session.position.isFinite else { return "\(path): the session could not be encoded" }
    let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    guard Self.makeFolder(folder) else { return "\(folder): \(String(cString: strerror(errno)))" }
    let temporary = path + ".tmp-\(getpid())"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return "\(temporary): \(String(cString: strerror(errno)))" }
    var written = true
    session.writeJSON { piece in
      written = written && piece.withUnsafeBytes { Self.writeAll(descriptor, $0) }
    }
    // The data reaches the disk before the name does: a crash after the rename finds the whole new file.
    let synced = written && fsync(descriptor) == 0
    close(descriptor)
    guard synced, rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      return "\(path): \(reason)"
    }
    let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directory >= 0 {
      fsync(directory)
      close(directory)
    }
    return nil
  }

  private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }

  /// Creates `folder` and its parents, private to the user, unless it exists.
  private static func makeFolder(_ folder: String) -> Bool {
    var status = stat()
    if stat(folder, &status) == 0 { return true }
    let parent = String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)])
    guard parent.isEmpty || makeFolder(parent) else { return false }
    return mkdir(folder, 0o700) == 0 || errno == EEXIST
  }

  /// Temporary files of writers that were killed before their rename (their process is gone).
  private func removeStaleTemporaries() {
    let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    let prefix = String(path[path.index(after: path.lastIndex(of: "/") ?? path.startIndex)...]) + ".tmp-"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
    for name in names where name.hasPrefix(prefix) {
      guard let pid = pid_t(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
      unlink(folder + "/" + name)
    }
  }
}
