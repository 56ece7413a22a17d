/// Decides when splay's MPRIS object emits `Seeked`.
///
/// The spec defines the signal by what clients may assume without it: while playing, the position moves at the
/// rate; while paused, it stays. So `Seeked` is due whenever a confirmed state breaks that assumption: another
/// track (a `next`, the end of a track, a repeat of one), or a position that is not where the previous one would
/// have moved to by then (a seek from any client: the socket, a script, MPRIS).
public enum MPRISSeekDetector {
  /// How far a confirmed position may be from where the previous one would have moved to without counting as a
  /// jump. Positions confirmed by a real server stray from that estimate by tens of milliseconds (latency reports
  /// of a corked stream swing by more on some servers); a person's seek steps are seconds. A smaller seek made
  /// through MPRIS is announced all the same (the object emits `Seeked` when its own seek is confirmed).
  public static let tolerance = 0.5

  /// Whether going from `old` to `new` moved the position in a way a client could not have predicted.
  public static func jumped(from old: PlayerState, to new: PlayerState) -> Bool {
    guard let track = new.track else { return false }
    if old.index != new.index || old.track?.path != track.path { return true }
    let expected = old.position.estimated(at: new.position.confirmedAt, limit: track.duration)
    return abs(new.position.seconds - expected) > tolerance
  }
}
