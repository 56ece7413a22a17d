/// A playback position the output confirmed, with when it was confirmed and how fast it moves since.
///
/// A view interpolates between confirmations with ``estimated(at:)``; the player itself never publishes
/// an interpolated value.
public struct ConfirmedPosition: Equatable, Hashable, Codable, Sendable {
  /// Seconds into the current track that the output confirmed as played.
  public var seconds: Double
  /// Monotonic time of the confirmation, in nanoseconds (`CLOCK_MONOTONIC`, or the simulated clock).
  public var confirmedAt: UInt64
  /// Media seconds per second since the confirmation: 1 while playing, 0 while paused or stopped.
  public var rate: Double

  /// Creates a confirmed position.
  public init(seconds: Double, confirmedAt: UInt64, rate: Double) {
    self.seconds = seconds
    self.confirmedAt = confirmedAt
    self.rate = rate
  }

  /// The start of a track, not moving.
  public static let zero = ConfirmedPosition(seconds: 0, confirmedAt: 0, rate: 0)

  /// The position a view may show at monotonic time `now`, clamped to `limit` (the track's duration).
  public func estimated(at now: UInt64, limit: Double = .infinity) -> Double {
    guard rate > 0, now > confirmedAt else { return min(seconds, limit) }
    let elapsed = Double(now - confirmedAt) / 1e9
    return min(seconds + elapsed * rate, limit)
  }
}
