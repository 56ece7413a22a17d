// The output's answer to a step: a confirmation, or a failure that fails the caller, is reconciled first, or
// skips a track that cannot be opened while the player moves on by itself.
extension PlayerStateMachine {
  /// What the controller does with the output's answer to a step.
  public enum StepAction: Equatable, Sendable {
    /// The step is done: publish this state (nil: nothing changed), then answer with the current state.
    case complete(publishing: PlayerState?)
    /// Fail with this error; nothing changed.
    case fail(PlayerError)
    /// The output missed its deadline and may have done the step after all: perform ``OutputStep/status``,
    /// hand its answer here too, so that the state says what the output really does, then fail with this error.
    case reconcileThenFail(PlayerError)
    /// Moving on by itself, the player met a track that cannot be opened: report the error (nothing fails, no
    /// caller waits) and perform this step, which tries the next track.
    case skip(PlayerError, next: OutputStep)
    /// As `skip`, but no track is left to try: the queue ended, with this state to publish (nil: nothing
    /// changed).
    case skipToEnd(PlayerError, publishing: PlayerState?)
  }

  /// Takes the output's answer to `step`: its confirmation, or the error it failed with (`cancelled` when
  /// nobody waits for it any more, which ends a move as any failure does).
  public mutating func answer(_ step: OutputStep, _ outcome: Result<StepResult, PlayerError>) -> StepAction {
    let failures = skippedMovingOn
    skippedMovingOn = nil
    switch outcome {
    case .success(let result):
      return .complete(publishing: confirm(step, result))
    case .failure(let error):
      // A status read that timed out has nothing to read again: a second deadline would only double the wait.
      if case .timeout = error, step != .status { return .reconcileThenFail(error) }
      guard let failures, error.isFileError, case .open(let queue, let index, _, let then) = step else {
        return .fail(error)
      }
      // A file that fails is not tried again when repeating one track: skipping moves on as `next` does. A
      // repeated queue of files that all fail ends after one round.
      if failures + 1 < queue.count, let next = indexInPlayOrder(from: index, by: 1) {
        skippedMovingOn = failures + 1
        return .skip(error, next: .open(queue: queue, index: next, seconds: 0, then: then))
      }
      return .skipToEnd(error, publishing: endQueue())
    }
  }

  /// Applies the output's confirmation of `step`. Returns the state to publish, or nil when nothing changed.
  private mutating func confirm(_ step: OutputStep, _ result: StepResult) -> PlayerState? {
    if case .status = step, case .confirmed(let confirmation, _) = result { return reconcile(confirmation) }
    var next = state
    if case .confirmed(let confirmation, nil) = result, let advance = confirmation.advance,
      confirmation.streamNumber != streamNumber, advance.from == streamNumber, let index = state.index,
      let advanced = advancedIndex(from: index, to: advance.track)
    {
      // The output moved on to the next track before it confirmed this step, and its trackAdvanced event waits
      // behind the step: the position counts from that track, so the move is taken first (the event is then
      // stale). A `play` at the end of a paused track confirmed the new track's position on the old one.
      next.index = advanced
      next.track = advance.track
      streamNumber = confirmation.streamNumber
    }
    switch (step, result) {
    case (.volume, .volume(let level)):
      next.volume = level
      volumeIsExplicit = true
    case (.mute, .mute(let muted)):
      next.muted = muted
    case (.open(let queue, let index, _, let then), .confirmed(let confirmation, let track)):
      next.queue = queue
      next.index = index
      next.track = track ?? next.track
      next.status = then.status(running: confirmation.running)
      next.position = position(confirmation)
      next.device = confirmation.device ?? next.device
      next.volume = confirmation.volume ?? next.volume
      streamNumber = confirmation.streamNumber
    case (.start, .confirmed(let confirmation, _)):
      next.status = .playing
      next.position = position(confirmation)
    case (.pause, .confirmed(let confirmation, _)):
      next.status = .paused
      next.position = position(confirmation)
    case (.seek, .confirmed(let confirmation, _)), (.seekBy, .confirmed(let confirmation, _)):
      next.position = position(confirmation)
    case (.stop, .confirmed(let confirmation, _)):
      next.status = .stopped
      next.position = position(confirmation)
    default:
      return nil
    }
    return publish(next)
  }

  /// Reconciles with the output's real state (a refresh, a missed deadline, a late confirmation): the stream is
  /// running or not, at the confirmed position. Returns the state to publish, or nil when nothing changed.
  mutating func reconcile(_ confirmation: OutputConfirmation) -> PlayerState? {
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

  /// The queue ended because the tracks after the current one could not be opened: publishes `ended` at the
  /// last confirmed position.
  private mutating func endQueue() -> PlayerState? {
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
