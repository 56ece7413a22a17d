/// What happens at the end of a track and of the queue.
public enum RepeatMode: String, Equatable, Hashable, Sendable, CaseIterable {
  /// The queue plays once and ends.
  case off
  /// After the last track, the first plays again.
  case all
  /// The current track plays again and again.
  case one

  /// The next mode of the cycle off → all → one → off (the live view's `r`).
  public var cycled: RepeatMode {
    switch self {
    case .off: .all
    case .all: .one
    case .one: .off
    }
  }
}
