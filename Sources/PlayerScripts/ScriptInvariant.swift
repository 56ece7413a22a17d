/// A rule a script checks during its whole run (`check always NAME`), not only at its `expect` lines.
public enum ScriptInvariant: String, CaseIterable, Equatable, Sendable {
  /// Every published position is the one the state before it let a player estimate (``PlayerCore/ConfirmedPosition/estimated(at:limit:)``),
  /// within 50 ms, unless a command moved it in between (seek, stop, next…): a view that follows the states
  /// never runs ahead of the audio or falls behind it.
  case positionAdvances = "position-advances"
  /// The audio server never ran out of audio while playing.
  case noUnderrun = "no-underrun"
  /// After every line, the state's volume, mute flag, playing or not, and sink are what the server reports for
  /// splay's stream, read over a connection of its own.
  case stateMatchesServer = "state-matches-server"
}
