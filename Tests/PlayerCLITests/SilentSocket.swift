import Foundation

/// A listening UNIX socket that never answers: it counts the connections made to it. A sound server address
/// that a test can watch, to tell whether `splay` connected at all.
final class SilentSocket {
  let path: String
  private let descriptor: Int32

  init() throws {
    path = "/tmp/splay-silent-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let bound = withUnixSocketAddress(path) { bind(descriptor, $0, $1) }
    guard descriptor >= 0, bound == 0, listen(descriptor, 64) == 0,
      fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) == 0
    else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  }

  deinit {
    close(descriptor)
    unlink(path)
  }

  /// The connections made since the last call (each is accepted and closed).
  func takeConnections() -> Int {
    var count = 0
    while case let client = accept(descriptor, nil, nil), client >= 0 {
      close(client)
      count += 1
    }
    return count
  }
}
