import PlayerCore

/// How one step went when it ran: for reports that list each line as a test case.
public struct ScriptStepOutcome: Equatable, Sendable {
  /// The step.
  public var step: PlaybackScript.Step
  /// Why it failed, or nil when it passed.
  public var failure: String?
  /// The wall time it took, in seconds.
  public var seconds: Double
  /// The state once it had run.
  public var state: PlayerState
  /// Why the line could not be judged (an audio check on a resampled sink), when it could not: never a pass.
  public var notJudged: String?

  /// How `step` went.
  public init(
    step: PlaybackScript.Step, failure: String?, seconds: Double, state: PlayerState, notJudged: String? = nil
  ) {
    self.step = step
    self.failure = failure
    self.seconds = seconds
    self.state = state
    self.notJudged = notJudged
  }
}

extension Duration {
  /// The duration in seconds.
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
