// An event of the output: a track ended, failed or gave way to the next gapless one; a late confirmation; a
// change of device, volume or mute made outside splay; the server lost.
extension PlayerStateMachine {
  /// What the controller does with an output event.
  public enum EventAction: Equatable, Sendable {
    /// Publish this state (already applied).
    case publish(PlayerState)
    /// Move on to the next track of the queue: perform this step on the player's behalf and hand its answer to
    /// ``answer(_:_:)``, which skips tracks that cannot be opened.
    case perform(OutputStep)
    /// Nothing to do.
    case ignore
  }

  /// Applies an output event. Only events that the output confirmed reach here.
  public mutating func handle(_ event: OutputEvent) -> EventAction {
    switch event {
    case .trackFinished(let confirmation), .trackFailed(_, let confirmation):
      // A track cut short moves on like one that finished; the controller reports why.
      guard state.status == .playing, let index = state.index, confirmation.streamNumber == streamNumber else {
        return .ignore
      }
      if let next = following(index) {
        finished = confirmation
        skippedMovingOn = 0
        return .perform(.open(queue: state.queue, index: next, seconds: 0, then: .playing))
      }
      var next = state
      next.status = .ended
      // The most recent confirmation wins: a seek confirmed after the stream had finished (it raced with the
      // end) moved the position, and the end event does not move it back.
      // At the same instant, the end came first: a seek applied first would have kept the track from ending.
      let latest =
        state.position.confirmedAt >= confirmation.time
        ? state.position.seconds : confirmation.position
      next.position = ConfirmedPosition(
        seconds: latest, confirmedAt: max(confirmation.time, state.position.confirmedAt), rate: 0)
      return publish(next).map(EventAction.publish) ?? .ignore
    case .trackAdvanced(let previous, let confirmation, let track):
      // The output moved on to the next track it was offered, in the same stream. Whatever the status now
      // (a pause may have been confirmed just after the boundary), the output's current track is that one.
      guard state.status.hasOpenTrack, previous == streamNumber, let index = state.index,
        let advanced = advancedIndex(from: index, to: track)
      else { return .ignore }
      var next = state
      next.index = advanced
      next.track = track
      streamNumber = confirmation.streamNumber
      // A confirmation made after the boundary (that pause) already counts from the new track's start.
      if confirmation.time >= state.position.confirmedAt {
        next.position = position(confirmation)
      }
      return publish(next).map(EventAction.publish) ?? .ignore
    case .confirmedLate(let confirmation):
      guard confirmation.streamNumber == streamNumber, let published = reconcile(confirmation) else { return .ignore }
      return .publish(published)
    case .deviceChanged(let device):
      var next = state
      next.device = device
      return publish(next).map(EventAction.publish) ?? .ignore
    case .volumeChanged(let level):
      var next = state
      next.volume = level
      return publish(next).map(EventAction.publish) ?? .ignore
    case .muteChanged(let muted):
      var next = state
      next.muted = muted
      return publish(next).map(EventAction.publish) ?? .ignore
    case .lost(let error):
      guard state.status != .idle else { return .ignore }
      var next = state
      next.status = .failed(error)
      next.position.rate = 0
      return publish(next).map(EventAction.publish) ?? .ignore
    case .underflow, .notice:
      return .ignore
    case .titleChanged(let title, let confirmation):
      guard confirmation.streamNumber == streamNumber, state.status.hasOpenTrack, state.track?.title != title
      else { return .ignore }
      var next = state
      next.track?.title = title
      // Published with the position it was heard at, which is newer than the last one confirmed.
      if confirmation.time >= state.position.confirmedAt { next.position = position(confirmation) }
      return publish(next).map(EventAction.publish) ?? .ignore
    }
  }
}
