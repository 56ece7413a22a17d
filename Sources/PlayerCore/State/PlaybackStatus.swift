/// What the player is doing, as last confirmed by the audio output.
public enum PlaybackStatus: Equatable, Hashable, Sendable {
  /// Nothing is loaded.
  case idle
  /// The output confirmed that audio is flowing.
  case playing
  /// The output confirmed that the stream is corked at ``PlayerState/position``.
  case paused
  /// A track is loaded and positioned, but not started (after `load` or `stop`).
  case stopped
  /// The last track of the queue played to its end and the output drained it.
  case ended
  /// The output failed; the reason says what to do next.
  case failed(PlayerError)

  /// The lower-case name used in scripts (`expect state paused`) and in JSON (`"status": "paused"`).
  public var name: String {
    switch self {
    case .idle: "idle"
    case .playing: "playing"
    case .paused: "paused"
    case .stopped: "stopped"
    case .ended: "ended"
    case .failed: "failed"
    }
  }

  /// True for the statuses in which a track is open at the output and can be sought in.
  public var hasOpenTrack: Bool {
    switch self {
    case .playing, .paused, .stopped: true
    case .idle, .ended, .failed: false
    }
  }
}
