/// The properties of splay's two MPRIS interfaces, as values computed from a confirmed ``PlayerState``.
///
/// Pure: the bus side asks for them when a client reads a property and compares them between two states to know
/// which changed (and so which `PropertiesChanged` to emit).
public enum MPRISProperties {
  /// The properties of `org.mpris.MediaPlayer2`, which never change. No `DesktopEntry`: splay installs no
  /// .desktop file, and the spec says to omit the property then.
  public static let root: [String: MPRISValue] = [
    "CanQuit": .boolean(true),
    "CanRaise": .boolean(false),
    "HasTrackList": .boolean(false),
    "Identity": .string("splay"),
    "SupportedUriSchemes": .strings(["file", "http", "https"]),
    "SupportedMimeTypes": .strings(supportedMimeTypes),
  ]

  /// The types of the formats splay decodes (README: Formats), for file managers' "open with".
  public static let supportedMimeTypes = [
    "audio/flac", "audio/x-flac", "audio/wav", "audio/x-wav", "audio/ogg", "audio/vorbis", "audio/opus",
    "audio/mpeg", "audio/mp4", "audio/x-m4a", "audio/aac", "audio/x-aiff", "audio/x-ms-wma", "audio/x-mpegurl",
    "audio/x-scpls",
  ]

  /// The properties of `org.mpris.MediaPlayer2.Player` in `state`, all but `Position` (see ``position(of:at:)``),
  /// which is read on demand and never announced. `directory` is the player's working folder (for `xesam:url`).
  public static func player(of state: PlayerState, directory: String) -> [String: MPRISValue] {
    player(of: state, metadata: MPRISMetadata.metadata(of: state, directory: directory))
  }

  /// ``player(of:directory:)`` with `metadata` already made for `state`'s track (it changes only with the track,
  /// and a storm of volume changes need not rebuild it each time).
  public static func player(of state: PlayerState, metadata: [String: MPRISValue]) -> [String: MPRISValue] {
    let open = state.status.hasOpenTrack
    return [
      "PlaybackStatus": .string(playbackStatus(state.status)),
      "LoopStatus": .string(loopStatus(state.repeatMode)),
      "Rate": .double(1),
      "Shuffle": .boolean(state.shuffle),
      "Metadata": .dictionary(metadata),
      "Volume": .double(Double(state.volume) / 100),
      "MinimumRate": .double(1),
      "MaximumRate": .double(1),
      "CanGoNext": .boolean(open && canStep(state, by: 1)),
      "CanGoPrevious": .boolean(open && canStep(state, by: -1)),
      "CanPlay": .boolean(canPlay(state)),
      "CanPause": .boolean(state.status == .playing || state.status == .paused),
      "CanSeek": .boolean(open && (state.track?.duration ?? 0) > 0 && state.track?.isLive == false),
      "CanControl": .boolean(true),
    ]
  }

  /// The names of the player properties whose values differ between `old` and `new` (sorted): what a
  /// `PropertiesChanged` signal announces.
  public static func changes(from old: [String: MPRISValue], to new: [String: MPRISValue]) -> [String] {
    Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()
  }

  /// `Position` in microseconds at monotonic time `now` (the clock of ``ConfirmedPosition/confirmedAt``): the
  /// confirmed position moved on at its rate, within the track; 0 with nothing open.
  public static func position(of state: PlayerState, at now: UInt64) -> Int64 {
    guard let track = state.track else { return 0 }
    return MPRISMetadata.microseconds(state.position.estimated(at: now, limit: track.duration))
  }

  /// `Playing` and `Paused` as confirmed; every other status is `Stopped` (idle, stopped, ended, failed).
  public static func playbackStatus(_ status: PlaybackStatus) -> String {
    switch status {
    case .playing: "Playing"
    case .paused: "Paused"
    case .idle, .stopped, .ended, .failed: "Stopped"
    }
  }

  /// `None`, `Track` or `Playlist` for repeat off, one and all.
  public static func loopStatus(_ mode: RepeatMode) -> String {
    switch mode {
    case .off: "None"
    case .one: "Track"
    case .all: "Playlist"
    }
  }

  /// The repeat mode a `LoopStatus` names, or nil for a name the spec does not define.
  public static func repeatMode(loopStatus: String) -> RepeatMode? {
    switch loopStatus {
    case "None": .off
    case "Track": .one
    case "Playlist": .all
    default: nil
    }
  }

  /// Whether `play` would do something: a track or a queue to start, resume or restart.
  private static func canPlay(_ state: PlayerState) -> Bool {
    switch state.status {
    case .idle: false
    case .failed: state.index != nil
    case .playing, .paused, .stopped, .ended: true
    }
  }

  /// Whether `next` (1) or `previous` (-1) has somewhere to go. From the state alone: in the queue's order, or
  /// anywhere when repeating all; with shuffle on (the shuffled order is the controller's) whenever the queue has
  /// another track, so that at the very end of a shuffled pass the button is offered and `next` then fails.
  private static func canStep(_ state: PlayerState, by delta: Int) -> Bool {
    guard let index = state.index, !state.queue.isEmpty else { return false }
    if state.repeatMode == .all { return true }
    if state.shuffle { return state.queue.count > 1 }
    return state.queue.indices.contains(index + delta)
  }
}
