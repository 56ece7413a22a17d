import Futures
import PlayerCore

/// Watches the published states of a run for a script's invariants (`check always …`): each violation is kept
/// with the line that was running, and the runner fails that line with it.
final class InvariantWatch: Sendable {
  /// How far a published position may be from the one the state before it let a player estimate, in seconds.
  static let tolerance = 0.05

  private struct Watching {
    /// The states up to this revision were published by a command that moved the position on purpose (a
    /// seek, a stop, another track): they start afresh. By revision, as observers may see a state after the
    /// command's future has settled.
    var movedThrough: UInt64 = 0
    /// The last state to judge the next against.
    var last: PlayerState?
    /// The positions found wrong, with the revision of their state: one that a command then turns out to have
    /// moved on purpose is dropped (observers may see its state before the command's future settles here).
    var suspects: [(revision: UInt64, message: String)] = []
    var underflowsSeen = 0
  }

  private let invariants: Set<ScriptInvariant>
  private let underflows: @Sendable () -> Int
  private let watching = Lock(Watching())

  /// A watch of `invariants`; `underflows` counts the times the output ran out of audio so far.
  init(_ invariants: [ScriptInvariant], underflows: @escaping @Sendable () -> Int) {
    self.invariants = Set(invariants)
    self.underflows = underflows
    let seen = underflows()
    watching.withLock { $0.underflowsSeen = seen }
  }

  /// A command that moved the position on purpose was confirmed, the latest state then being `revision`.
  func moved(through revision: UInt64) {
    watching.withLock { $0.movedThrough = max($0.movedThrough, revision) }
  }

  /// A published state.
  func observe(_ state: PlayerState) {
    guard invariants.contains(.positionAdvances) else { return }
    watching.withLock { watching in
      defer { watching.last = Self.judged(state) ? state : nil }
      guard state.revision > watching.movedThrough, let last = watching.last, Self.judged(state),
        last.index == state.index,
        last.track?.path == state.track?.path, state.position.confirmedAt >= last.position.confirmedAt
      else { return }
      let expected = last.position.estimated(at: state.position.confirmedAt, limit: last.track?.duration ?? .infinity)
      let actual = state.position.seconds
      // At the end a track may start over (repeat one), as another track would.
      let atTheEnd = last.track.map { expected >= $0.duration - Self.tolerance } ?? false
      guard abs(actual - expected) > Self.tolerance, !atTheEnd else { return }
      watching.suspects.append(
        (
          state.revision,
          "check always position-advances: \(state.status.name) at \(formatSeconds(actual)) s where the state "
            + "before (\(last.status.name) at \(formatSeconds(last.position.seconds)) s) led to "
            + "\(formatSeconds(expected)) s"
        ))
    }
  }

  /// The violation seen since the last call (with the line that was running), or nil.
  func takeViolation() -> String? {
    let count = underflows()
    return watching.withLock { watching in
      let moved = watching.movedThrough
      let position = watching.suspects.first { $0.revision > moved }?.message
      watching.suspects = []
      let underrun = invariants.contains(.noUnderrun) && count > watching.underflowsSeen
      watching.underflowsSeen = count
      return position ?? (underrun ? "check always no-underrun: the server ran out of audio" : nil)
    }
  }

  /// Whether a state has a position to judge: a track playing or paused.
  private static func judged(_ state: PlayerState) -> Bool {
    state.status == .playing || state.status == .paused
  }
}
