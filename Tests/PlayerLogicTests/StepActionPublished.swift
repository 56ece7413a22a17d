import PlayerCore

extension PlayerStateMachine.StepAction {
  /// The state a `.complete` answer publishes; nil for any other action, or when nothing changed.
  var published: PlayerState? {
    guard case .complete(let state) = self else { return nil }
    return state
  }
}
