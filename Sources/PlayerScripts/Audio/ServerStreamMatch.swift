import PlayerCore

/// Whether a confirmed state says of splay's stream what the server reports of it
/// (`check always state-matches-server`).
public enum ServerStreamMatch {
  /// Why `state` and the server's `stream` (nil: splay has no stream) disagree, naming both values; nil when
  /// they agree. A state that has ended is not held to a cork: the drained stream may stay uncorked.
  public static func mismatch(_ state: PlayerState, _ stream: ServerStream?) -> String? {
    let status = state.status.name
    guard let stream else {
      return status == "playing" || status == "paused"
        ? "the state is \(status), the server has no stream of splay's" : nil
    }
    if status == "playing", stream.corked { return "the state is playing, the server has the stream corked" }
    if status == "paused" || status == "stopped", !stream.corked {
      return "the state is \(status), the server plays the stream uncorked"
    }
    if stream.volume != state.volume {
      return "the state says volume \(state.volume) %, the server plays the stream at \(stream.volume) %"
    }
    if stream.muted != state.muted {
      return "the state says \(state.muted ? "muted" : "not muted"), the server has the stream "
        + (stream.muted ? "muted" : "not muted")
    }
    if let device = state.device, device != stream.sink {
      return "the state says sink \(device), the server plays the stream to \(stream.sink)"
    }
    return nil
  }
}
