/// Turns the server's raw playback clock into a position that a listener can trust.
///
/// PulseAudio's stream time is the read index minus the sink's latency, and right after a cork, an uncork or
/// a flush (PulseAudio 16 more than later versions) the latency estimate jumps for a moment: the raw position
/// then steps back, or leaps ahead of the audio. The filter keeps what is physically possible:
/// - the position never moves backwards, except when a seek or a new track resets it;
/// - while playing, it cannot advance faster than the wall clock (plus a small tolerance for the two clocks'
///   jitter), so a spike ahead is absorbed and the position catches up only as fast as audio really plays;
/// - while corked, the server's clock stands still, and so does the position once it has been read after the
///   cork;
/// - it stays within the track.
struct PositionFilter {
  /// How much faster than the wall clock the position may advance, to absorb timing jitter of the two clocks.
  static let tolerance = 0.02
  /// Slack in seconds added to every step, for the granularity of the server's timing updates.
  static let slack = 0.002

  /// The last position given out, in seconds into the track.
  private(set) var position: Double
  /// When it was given out (monotonic nanoseconds), or nil right after a reset.
  private var time: UInt64?
  /// Whether the stream was running at that reading: audio may have flowed until a cork after it.
  private var wasRunning = false

  /// Starts at `seconds`.
  init(at seconds: Double = 0) {
    position = seconds
  }

  /// Starts over at `seconds`: a seek, a flush or a new track, where the position may move anywhere.
  mutating func reset(to seconds: Double) {
    position = seconds
    time = nil
    wasRunning = false
  }

  /// Takes a raw reading of the server's clock made at `now` and returns the position to confirm.
  ///
  /// `running` says whether the stream is uncorked now; `duration` is the track's length. The first reading
  /// after a cork is held to the wall clock too, since audio flowed until the cork.
  mutating func update(raw: Double, at now: UInt64, running: Bool, duration: Double) -> Double {
    var next = max(raw, position)
    if running || wasRunning, let time {
      let wall = now > time ? Double(now - time) / 1e9 : 0
      next = min(next, position + wall * (1 + Self.tolerance) + Self.slack)
    }
    position = min(next, max(duration, position))
    time = now
    wasRunning = running
    return position
  }
}
