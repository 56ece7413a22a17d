import Dispatch
import FoundationEssentials
import Glibc
import PlayerCore

/// Where the control socket lives, and the checks made before serving on it.
enum SocketPath {
  /// `$XDG_RUNTIME_DIR/splay.sock`, the default for `serve` and `ctl`.
  static func defaultPath() throws -> String {
    guard let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else {
      throw CLIError(
        message: "XDG_RUNTIME_DIR is not set; pass --socket PATH (in a directory only you can write)", status: .usage)
    }
    return runtime + "/splay.sock"
  }

  /// Refuses a directory that other users can write to (they could replace the socket), unless the path was
  /// given explicitly.
  static func checkDirectory(of path: String, explicit: Bool) throws {
    let folder = FileContents.directory(of: path)
    let directory = folder.isEmpty ? "." : folder
    var st = stat()
    guard stat(directory, &st) == 0 else {
      throw CLIError(
        message: "\(directory): \(String(cString: strerror(errno))) (the socket's directory must exist)", status: .usage
      )
    }
    let sticky = st.st_mode & S_ISVTX != 0
    let othersWrite = st.st_mode & (S_IWOTH | S_IWGRP) != 0
    if othersWrite && !explicit {
      throw CLIError(
        message:
          "\(directory) is writable by other users\(sticky ? "" : " and not sticky"); pass --socket to use it anyway",
        status: .usage)
    }
  }

  /// True when a server answers on `path`; a stale socket file (nobody listening) is removed.
  static func claim(_ path: String) throws {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    guard st.st_mode & S_IFMT == S_IFSOCK else {
      throw CLIError(
        message: "\(path) exists and is not a socket; remove it or choose another --socket", status: .usage)
    }
    if let fd = try? connect(path) {
      close(fd)
      throw CLIError(message: "another splay already serves \(path)", status: .failed)
    }
    unlink(path)
  }

  /// Connects a stream socket to `path`, returning the descriptor.
  static func connect(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw CLIError(message: "socket: \(String(cString: strerror(errno)))", status: .failed) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      close(fd)
      throw CLIError(message: "\(path): socket path too long", status: .usage)
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let reason = String(cString: strerror(errno))
      close(fd)
      throw CLIError(message: "cannot connect to \(path): \(reason) (is 'splay serve' running?)", status: .failed)
    }
    return fd
  }
}
