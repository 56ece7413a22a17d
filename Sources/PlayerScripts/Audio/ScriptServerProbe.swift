import PlayerCore

/// The audio server seen from beside the player, for the checks a script makes of the server itself: the audio at
/// the sink (`expect audio`) and splay's stream as the server reports it (`check always state-matches-server`).
public protocol ScriptServerProbe: Sendable {
  /// Starts listening to the sink, before the script's first line, so that an audio check can look back at
  /// what was played since.
  func start() async
  /// Judges `check` against what the sink played; `from` is where the audio should have begun when the line
  /// names no position, and `state` gives the confirmed state at the moment it is asked (a check listens for a
  /// while: the track may end meanwhile).
  func judge(_ check: AudioCheck, from: Double, state: @escaping @Sendable () -> PlayerState) async -> AudioVerdict
  /// splay's stream as the server reports it now: nil when splay has no stream; a failure when it cannot be
  /// read (its text says why).
  func stream() async -> Result<ServerStream?, ServerProbeFailure>
  /// Stops listening.
  func stop() async
}

/// Why a probe could not read the server.
public struct ServerProbeFailure: Error, Equatable, Sendable {
  /// The reason, in one line.
  public var reason: String

  /// A failure for `reason`.
  public init(_ reason: String) {
    self.reason = reason
  }
}

/// splay's stream as the server reports it, read independently of the output that plays it.
public struct ServerStream: Equatable, Sendable {
  /// The stream's volume in percent (the average of its channels, PulseAudio's cubic scale).
  public var volume: Int
  /// The stream's mute flag.
  public var muted: Bool
  /// Whether the stream is corked (paused at the server).
  public var corked: Bool
  /// The name of the sink it plays to.
  public var sink: String

  /// A reading.
  public init(volume: Int, muted: Bool, corked: Bool, sink: String) {
    self.volume = volume
    self.muted = muted
    self.corked = corked
    self.sink = sink
  }
}
