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
}
