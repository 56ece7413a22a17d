import PlayerCore

/// Turns the server's raw playback clock into a position that a listener can trust.
///
/// PulseAudio's stream time is the read index minus the sink's latency, and right after a cork, an uncork or
/// a flush (PulseAudio 16 more than later versions) the latency estimate jumps for a moment: the raw position
/// then steps back, or leaps ahead of the audio. The filter keeps what is physically possible:
/// - the position never moves backwards, except when a seek or a new track resets it;
/// - while playing, it cannot advance faster than the wall clock (plus a small tolerance for the two clocks'
///   jitter), so a spike ahead is absorbed and the position catches up only as fast as audio really plays;
/// - while corked, the position stands still once it has been read after the cork (or since a seek or a new
///   stream), whatever the raw clock does: a sink whose latency swings while nothing plays (a null sink with no
///   reader, which renders in blocks of up to 2 s) moved a paused position by 0.3 s that way;
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
  /// Set by ``began(at:)``: a reading within a millisecond of it is the confirmation of that start, at the
  /// position the server began from (the wall clock's few microseconds since would move it by a frame).
  private var confirmsBegin = false

  /// Starts at `seconds`.
  init(at seconds: Double = 0) {
    position = seconds
  }

  /// Starts over at `seconds`: a seek, a flush or a new track, where the position may move anywhere.
  mutating func reset(to seconds: Double) {
    position = seconds
    time = nil
    wasRunning = false
    confirmsBegin = false
  }

  /// Starts over at `seconds`, read at `now` from a stream that plays: the next track of a gapless stream.
  /// Audio goes on flowing, so a reading after a cork that follows still counts the time since `now`.
  mutating func advance(to seconds: Double, at now: UInt64) {
    position = seconds
    time = now
    wasRunning = true
  }

  /// The stream was uncorked at `now`: from there on the position may advance at the wall clock's pace, and not
  /// by the time it stood still before (a server's clock that drifted while corked, as after a reconnection,
  /// put the first position after `play` 2.2 s ahead of the audio).
  mutating func resumed(at now: UInt64) {
    guard !wasRunning else { return }
    time = now
  }

  /// The server was seen to begin reading the stream at `now`, having read ahead what it had not played (PipeWire
  /// reads two quanta at its start and reports no latency): from here the position advances at the wall clock's
  /// pace, not by that read-ahead.
  mutating func began(at now: UInt64) {
    time = now
    wasRunning = true
    confirmsBegin = true
  }

  /// Takes a raw reading of the server's clock made at `now` and returns the position to confirm.
  ///
  /// `running` says whether the stream is uncorked now; `duration` is the track's length. The first reading
  /// after a cork is held to the wall clock too, since audio flowed until the cork.
  mutating func update(raw: Double, at now: UInt64, running: Bool, duration: Double) -> Double {
    guard running || wasRunning else {
      time = now
      return position
    }
    if confirmsBegin, running, let time {
      confirmsBegin = false
      if now < time + 1_000_000 { return position }
    }
    var next = max(raw, position)
    if let time {
      let wall = now > time ? Double(now - time) / 1e9 : 0
      next = min(next, position + wall * (1 + Self.tolerance) + Self.slack)
    }
    position = min(next, max(duration, position))
    time = now
    wasRunning = running
    return position
  }
}
