import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// Who is at the other end of a control connection, as the kernel says (SO_PEERCRED), not as the client says.
///
/// The socket is created 0600, but a mode is only the first fence: root passes it, and a socket file can be
/// made reachable by mistake (a chmod, a bind mount). The server therefore also checks each peer's uid.
enum PeerCredentials {
  /// Why a peer may not use this server, or nil when it runs as the same user.
  ///
  /// Completes on the channel's event loop before the channel becomes active, so the answer is known before
  /// the first request is read.
  static func refusal(for channel: any Channel) -> EventLoopFuture<String?> {
    let serverUID = getuid()
    guard let provider = channel as? any SocketOptionProvider else {
      return channel.eventLoop.makeSucceededFuture("the peer's user cannot be checked on this socket")
    }
    // `struct ucred { pid_t pid; uid_t uid; gid_t gid; }`, which Glibc's Swift module does not export (it needs
    // _GNU_SOURCE); a tuple has the same C layout.
    let credentials: EventLoopFuture<(pid: pid_t, uid: uid_t, gid: gid_t)> = provider.unsafeGetSocketOption(
      level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
    return credentials.map { peer -> String? in
      peer.uid == serverUID ? nil : "this player belongs to uid \(serverUID); uid \(peer.uid) may not control it"
    }.recover { error in
      "the peer's user cannot be checked (\(error))"
    }
  }
}
