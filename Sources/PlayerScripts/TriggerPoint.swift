import PlayerCore

/// Where in playback a script line waits to act: `at 5.0`, `at end-2`, `on track 3`, `on ended`. Each is
/// judged on confirmed states only: a position is the one the audio server confirms, not an estimate.
public enum TriggerPoint: Equatable, Sendable, CustomStringConvertible {
  /// The current track's confirmed position reaches `seconds`.
  case position(Double)
  /// The current track's confirmed position reaches `seconds` before its end.
  case beforeEnd(Double)
  /// Track `number` (1-based, in queue order) is the current one.
  case track(Int)
  /// The status is the one named (`playing`, `paused`, `stopped`, `ended`, `failed`, `idle`).
  case status(String)

  /// As a script says it: `5.0`, `end-2`, `track 3`, `ended`.
  public var description: String {
    switch self {
    case .position(let seconds): formatSeconds(seconds)
    case .beforeEnd(let seconds): "end-" + formatSeconds(seconds)
    case .track(let number): "track \(number)"
    case .status(let name): name
    }
  }

  /// Whether the point is a position in the current track (reached by the audio clock) rather than an event.
  public var isPosition: Bool {
    switch self {
    case .position, .beforeEnd: true
    case .track, .status: false
    }
  }
}
