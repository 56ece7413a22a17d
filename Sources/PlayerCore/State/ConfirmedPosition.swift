/// A playback position the output confirmed, with when it was confirmed and how fast it moves since.
///
/// A view interpolates between confirmations with ``estimated(at:)``; the player itself never publishes
/// an interpolated value.
public struct ConfirmedPosition: Equatable, Hashable, Sendable {
  /// Seconds into the current track that the output confirmed as played.
  public var seconds: Double
  /// Monotonic time of the confirmation, in nanoseconds (`CLOCK_MONOTONIC`, or the simulated clock).
  public var confirmedAt: UInt64
  /// Media seconds per second since the confirmation: 1 while playing, 0 while paused or stopped.
  public var rate: Double
  /// When the position starts to move, if later than `confirmedAt`: the server has taken the audio at
  /// `seconds` but plays it only then (a sink's latency; a null sink still playing out the 2-second block it
  /// rendered before). Nil when it moves from `confirmedAt`.
  public var movesAt: UInt64?

  /// Creates a confirmed position.
  public init(seconds: Double, confirmedAt: UInt64, rate: Double, movesAt: UInt64? = nil) {
    self.seconds = seconds
    self.confirmedAt = confirmedAt
    self.rate = rate
    self.movesAt = movesAt
  }

  /// The start of a track, not moving.
  public static let zero = ConfirmedPosition(seconds: 0, confirmedAt: 0, rate: 0)

  /// Seconds from monotonic time `now` until the position starts to move (``movesAt``); 0 once it may.
  public func secondsUntilItMoves(at now: UInt64) -> Double {
    guard let movesAt, movesAt > now else { return 0 }
    return Double(movesAt - now) / 1e9
  }

  /// The position a view may show at monotonic time `now`, clamped to `limit` (the track's duration).
  public func estimated(at now: UInt64, limit: Double = .infinity) -> Double {
    let start = max(confirmedAt, movesAt ?? 0)
    guard rate > 0, now > start else { return min(seconds, limit) }
    let elapsed = Double(now - start) / 1e9
    return min(seconds + elapsed * rate, limit)
  }
}
