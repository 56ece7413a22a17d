// What goes wrong: a step the output refused or did not confirm in time, and tracks that cannot be opened.
extension PlayerStateMachine {
  /// What the controller does when the output failed a step.
  public enum FailureReaction: Equatable, Sendable {
    /// Fail with this error; nothing changed.
    case fail(PlayerError)
    /// The output missed its deadline and may have done the step after all: read its status, pass it to
    /// ``reconcile(_:)`` so that the state says what the output really does, then fail with this error.
    case reconcileThenFail(PlayerError)
    /// Moving on by itself, the player met a track that cannot be opened: report the error (nothing fails,
    /// no caller waits) and go on as the skip says.
    case skip(PlayerError, SkipReaction)
  }

  /// Decides what the failure of `step` with `error` needs. `failures` is nil for a caller's command; when
  /// the player moves on by itself (the previous track ended), it counts the tracks skipped on the way.
  public mutating func fail(_ step: OutputStep, _ error: PlayerError, movingOn failures: Int? = nil)
    -> FailureReaction
  {
    if case .timeout = error { return .reconcileThenFail(error) }
    if let failures, error.isFileError, let skip = skip(unopenable: step, failures: failures) {
      return .skip(error, skip)
    }
    return .fail(error)
  }

  /// Reconciles with the output's real state after a missed deadline: the stream is running or not, at the
  /// confirmed position. Returns the state to publish, or nil when nothing changed.
  public mutating func reconcile(_ confirmation: OutputConfirmation) -> PlayerState? {
    guard state.status.hasOpenTrack else { return nil }
    var next = state
    if confirmation.running {
      next.status = .playing
    } else if state.status == .playing {
      next.status = .paused
    }
    next.position = position(confirmation)
    return publish(next)
  }

  /// What the controller does when the file an `open` step names cannot be opened while moving on by itself
  /// (the previous track ended): the step that tries the next track, or the end of the queue.
  public enum SkipReaction: Equatable, Sendable {
    /// Try this step next.
    case perform(OutputStep)
    /// No track is left to try: the queue ended, with this state to publish (nil: nothing changed).
    case ended(PlayerState?)
  }

  /// Skips the unopenable track of `step` (an `open`), `failures` tracks having failed before it on the way:
  /// the next one by the queue modes is tried, unless every track of the queue has failed once (a repeated
  /// queue of files that all fail ends after one round), or none follows. Nil for a step that opens nothing.
  public mutating func skip(unopenable step: OutputStep, failures: Int) -> SkipReaction? {
    guard case .open(let queue, let index, _, let then) = step else { return nil }
    // A file that fails is not tried again when repeating one track: skipping moves on as `next` does.
    if failures + 1 < queue.count, let next = self.indexInPlayOrder(from: index, by: 1) {
      return .perform(.open(queue: queue, index: next, seconds: 0, then: then))
    }
    return .ended(endQueue())
  }

  /// The queue ended because the tracks after the current one could not be opened: publishes `ended` at the
  /// last confirmed position.
  public mutating func endQueue() -> PlayerState? {
    guard state.status == .playing else { return nil }
    var next = state
    next.status = .ended
    next.position.rate = 0
    // The most recent confirmation wins, as when the last track ends: a seek confirmed after the track had
    // finished (it raced with the end) moved the position, and the end does not move it back.
    if let finished, finished.time > state.position.confirmedAt {
      next.position = ConfirmedPosition(seconds: finished.position, confirmedAt: finished.time, rate: 0)
    }
    return publish(next)
  }
}
