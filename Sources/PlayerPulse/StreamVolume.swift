import PlayerCore

/// The stream's volume and mute flag as splay set them and the server reported them, and which reported
/// change is a session manager's restore to undo rather than the user's to publish. Decides only;
/// ``PulseOutput`` carries out what it returns.
struct StreamVolume: Equatable, Sendable {
  /// What to do about a volume or mute flag the server reported for splay's stream.
  enum Reaction<Value: Equatable & Sendable>: Equatable, Sendable {
    /// Nothing changed.
    case ignore
    /// A session manager's restore overrode what splay set: set `Value` again.
    case reassert(Value)
    /// Another program (pavucontrol, pactl) changed it: publish `Value`.
    case publish(Value)
  }

  /// What a new stream needs once its volume at the server is known.
  struct NewStreamFix: Equatable, Sendable {
    /// The explicit level to set, when the server gave the stream another.
    var level: Int?
    /// Whether to mute the stream (a muted player's next stream is muted too).
    var mute: Bool
  }

  /// How long after a stream appears a change splay did not make is taken for a session manager's restore
  /// (WirePlumber's lands 0.5-2.5 ms after the stream appears), in ns.
  static let restoreWatch: UInt64 = 1_000_000_000

  /// The level in percent, as last set by splay or reported by the server.
  private(set) var level = 100
  /// The mute flag, as last set by splay or reported by the server; a new stream gets it too.
  private(set) var muted = false
  /// The level asked for by `open` or `setVolume`, which a restore must not override.
  private(set) var explicit: Int?
  /// Until when (monotonic ns) a reported change is taken for a restore.
  private var restoreWatchUntil: UInt64 = 0

  /// A new stream is created with `volume` (nil: the server chooses).
  mutating func streamCreated(volume: Int?) {
    level = volume ?? 100
    explicit = volume
  }

  /// `setVolume` with no stream: the level is the next stream's.
  mutating func requestedWithoutStream(_ level: Int) {
    self.level = level
    explicit = level
  }

  /// The server acknowledged setting `level`; `explicit` when the user asked for it (not a reassertion).
  mutating func acknowledged(level: Int, explicit: Bool) {
    self.level = level
    if explicit { self.explicit = level }
  }

  /// The server acknowledged the mute flag, or `setMute` took it with no stream, for the next.
  mutating func set(muted: Bool) { self.muted = muted }

  /// The new stream became ready at `now`: the restore watch starts.
  mutating func streamReady(at now: UInt64) {
    restoreWatchUntil = now + Self.restoreWatch
  }

  /// The new stream's volume at the server is `level`: what to set so that it plays as splay said.
  mutating func newStreamRead(level: Int) -> NewStreamFix {
    self.level = level
    let fix = explicit.flatMap { $0 == level ? nil : $0 }
    return NewStreamFix(level: fix, mute: muted)
  }

  /// The server reported `reported` for the stream at `now`.
  mutating func reported(level reported: Int, at now: UInt64) -> Reaction<Int> {
    guard reported != level else { return .ignore }
    if let explicit, explicit == level, now < restoreWatchUntil { return .reassert(explicit) }
    level = reported
    explicit = nil
    return .publish(reported)
  }

  /// The server reported the mute flag `reported` for the stream at `now`.
  mutating func reported(muted reported: Bool, at now: UInt64) -> Reaction<Bool> {
    guard reported != muted else { return .ignore }
    if now < restoreWatchUntil { return .reassert(muted) }
    muted = reported
    return .publish(reported)
  }
}
