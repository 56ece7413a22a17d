/// Everything a person or a script sees of the player: only ever what the audio output confirmed.
///
/// `PlayerState` changes in exactly one place, ``PlayerStateMachine``, when an acknowledgement or an output
/// event arrives; every published change carries a larger ``revision``.
///
/// A value type with copy-on-write storage: every published state is copied into the command's future, to
/// each observer and into the controller's machine, so a copy costs one reference count rather than a copy
/// of every field (the track, the queue, the device name); a state that is written gets its own storage first.
public struct PlayerState: Sendable {
  /// The stored fields, kept together so that one reference carries them all.
  private struct Fields: Hashable, Sendable {
    var status: PlaybackStatus
    var track: TrackInfo?
    var position: ConfirmedPosition
    var volume: Int
    var queue: TrackQueue
    /// The length a state read from the control protocol carries instead of the paths; nil for a local state.
    var queueLength: Int?
    var queueRevision: UInt64
    var index: Int?
    var revision: UInt64
    var device: String?
    var repeatMode: RepeatMode
    var shuffle: Bool
    var muted: Bool
  }

  private var fields: CopyOnWrite<Fields>

  /// What the player is doing.
  public var status: PlaybackStatus {
    get { fields.value.status }
    _modify { yield &fields.value.status }
  }
  /// The current track, when one is open.
  public var track: TrackInfo? {
    get { fields.value.track }
    _modify { yield &fields.value.track }
  }
  /// The confirmed position in the current track.
  public var position: ConfirmedPosition {
    get { fields.value.position }
    _modify { yield &fields.value.position }
  }
  /// Output volume in percent, 0–100, as the server confirmed it.
  public var volume: Int {
    get { fields.value.volume }
    _modify { yield &fields.value.volume }
  }
  /// The paths queued for playback, in order.
  public var queue: TrackQueue {
    get { fields.value.queue }
    _modify { yield &fields.value.queue }
  }
  /// How many tracks the queue holds. A state read from the control protocol carries the length, not the paths
  /// (its ``queue`` is empty): a state line stays small whatever the queue, and the `queue` request pages them.
  public var queueLength: Int { fields.value.queueLength ?? fields.value.queue.count }
  /// Increases whenever the queue's paths change (``PlayerStateMachine`` counts them), so that a client holding
  /// the paths knows when to read them again.
  public var queueRevision: UInt64 {
    get { fields.value.queueRevision }
    _modify { yield &fields.value.queueRevision }
  }
  /// The zero-based index of the current track in ``queue``, when there is one.
  public var index: Int? {
    get { fields.value.index }
    _modify { yield &fields.value.index }
  }
  /// Increases by one with every published change.
  public var revision: UInt64 {
    get { fields.value.revision }
    _modify { yield &fields.value.revision }
  }
  /// The device the server plays the stream to (a PulseAudio sink name), as the server last reported it;
  /// nil before the first stream was opened, and on outputs that have no devices.
  public var device: String? {
    get { fields.value.device }
    _modify { yield &fields.value.device }
  }
  /// What happens at the end of a track and of the queue.
  public var repeatMode: RepeatMode {
    get { fields.value.repeatMode }
    _modify { yield &fields.value.repeatMode }
  }
  /// Whether the queue plays in a random order (the queue keeps its own order; `next` follows the shuffle).
  public var shuffle: Bool {
    get { fields.value.shuffle }
    _modify { yield &fields.value.shuffle }
  }
  /// Whether the stream is muted at the server (its mute flag, as the server confirmed it); ``volume`` keeps the
  /// level it plays at once unmuted.
  public var muted: Bool {
    get { fields.value.muted }
    _modify { yield &fields.value.muted }
  }

  /// Creates a state; the defaults describe a player with nothing loaded.
  public init(
    status: PlaybackStatus = .idle, track: TrackInfo? = nil, position: ConfirmedPosition = .zero,
    volume: Int = 100, queue: TrackQueue = [], index: Int? = nil, revision: UInt64 = 0, device: String? = nil,
    repeatMode: RepeatMode = .off, shuffle: Bool = false, muted: Bool = false, queueRevision: UInt64 = 0
  ) {
    fields = CopyOnWrite(
      Fields(
        status: status, track: track, position: position, volume: volume, queue: queue, queueLength: nil,
        queueRevision: queueRevision, index: index, revision: revision, device: device, repeatMode: repeatMode,
        shuffle: shuffle, muted: muted))
  }

  /// The state before anything was loaded.
  public static let initial = PlayerState()

  /// True when `other` describes the same player, ignoring the revision, and the confirmation time of a
  /// position that is not moving (a paused position confirmed again is no news).
  ///
  /// Used to decide whether an acknowledgement changed anything worth publishing.
  public func sameContent(as other: PlayerState) -> Bool {
    if fields.isIdentical(to: other.fields) { return true }
    let mine = fields.value
    let theirs = other.fields.value
    let position =
      mine.position.rate == 0 && theirs.position.rate == 0
      ? mine.position.seconds == theirs.position.seconds
      : mine.position == theirs.position
    return position && mine.status == theirs.status && mine.volume == theirs.volume && mine.index == theirs.index
      && mine.device == theirs.device && mine.track == theirs.track
      // The revision first: the machine has just compared the paths to set it, and 200,000 of them cost.
      && mine.queueRevision == theirs.queueRevision && mine.queueLength == theirs.queueLength
      && mine.queue == theirs.queue
      && mine.repeatMode == theirs.repeatMode && mine.shuffle == theirs.shuffle && mine.muted == theirs.muted
  }
}

/// Equal when every field is, revision included.
extension PlayerState: Hashable {}

extension PlayerState {
  /// This state as a client of the control protocol has it: `length` tracks queued, whose paths are not here
  /// (the protocol's `queue` request pages them).
  public func withQueueLength(_ length: Int) -> PlayerState {
    var copy = self
    copy.fields.value.queue = []
    copy.fields.value.queueLength = length
    return copy
  }
}

extension PlayerState: CustomDebugStringConvertible {
  /// Every field, as a test failure or the debugger should show it (not the storage that holds them).
  public var debugDescription: String { "PlayerState\(String(describing: fields.value).dropFirst("Fields".count))" }
}
