/// One thing the controller asks of the audio output on behalf of a command.
public enum OutputStep: Equatable, Hashable, Sendable {
  /// Opens `queue[index]` at `seconds`; `then` says what the player does once it is open.
  case open(queue: TrackQueue, index: Int, seconds: Double, then: StatusAfterOpen)
  /// Uncorks.
  case start
  /// Corks.
  case pause
  /// Moves to an absolute position in seconds (already clamped to the track).
  case seek(Double)
  /// Moves by seconds from where playback is now: the output is asked for its position first, because the
  /// last published position of a playing track is already in the past. Clamped to `0...duration`.
  case seekBy(Double, duration: Double)
  /// Corks, flushes and rewinds to 0.
  case stop
  /// Sets the volume in percent.
  case volume(Int)
  /// Sets the stream's mute flag.
  case mute(Bool)
  /// Reads where the output is and whether it runs (a refresh, or after a missed deadline): the state is then
  /// reconciled with it.
  case status

  /// What the player does once a newly opened track is ready.
  public enum StatusAfterOpen: Equatable, Hashable, Sendable {
    /// Stays corked and reports `stopped` (after `load`, or moving through the queue while stopped).
    case stopped
    /// Stays corked and reports `paused` (moving through the queue while paused).
    case paused
    /// Starts playing (moving through the queue while playing, `play` after the end, or reconnecting).
    case playing

    /// The status an `open` publishes when the output confirmed the stream `running` or corked: what the
    /// output confirmed, not what was asked, since a stream prepared to play before its `open`
    /// (`PulseOutput.prepare(_:playingWhen:)`) is handed over running.
    public func status(running: Bool) -> PlaybackStatus {
      if self == .playing || running { return .playing }
      return self == .paused ? .paused : .stopped
    }
  }
}

extension OutputStep {
  /// Whether the output only sends a request for this step (no file is opened or read on the caller's thread).
  var asksWithoutBlocking: Bool {
    if case .open = self { return false }
    return true
  }

  /// The step that completes this `open` once the output confirmed the stream `opened`: `start` when the
  /// track is to play and the stream is still corked; nil when nothing is left (it was to stay corked, or the
  /// output handed over a stream already playing, whose confirmation is then the start's).
  public func followUp(afterOpening opened: OutputConfirmation) -> OutputStep? {
    guard case .open(_, _, _, .playing) = self, !opened.running else { return nil }
    return .start
  }

  /// Where a `seekBy` lands when the output says playback is at `position`: within `0...duration`. Nil for
  /// the other steps.
  public func seekTarget(from position: Double) -> Double? {
    guard case .seekBy(let delta, let duration) = self else { return nil }
    return min(max(position + delta, 0), duration)
  }
}

/// What the output confirmed for a step.
public enum StepResult: Equatable, Sendable {
  /// A stream operation, with the confirmed position and, for `open`, the track that was opened.
  case confirmed(OutputConfirmation, track: TrackInfo?)
  /// The volume the server confirmed.
  case volume(Int)
  /// The mute flag the server confirmed.
  case mute(Bool)
}
