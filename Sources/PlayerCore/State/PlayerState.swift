/// Everything a person or a script sees of the player: only ever what the audio output confirmed.
///
/// `PlayerState` changes in exactly one place, ``PlayerStateMachine``, when an acknowledgement or an output
/// event arrives; every published change carries a larger ``revision``.
public struct PlayerState: Equatable, Hashable, Sendable {
  /// What the player is doing.
  public var status: PlaybackStatus
  /// The current track, when one is open.
  public var track: TrackInfo?
  /// The confirmed position in the current track.
  public var position: ConfirmedPosition
  /// Output volume in percent, 0–100, as the server confirmed it.
  public var volume: Int
  /// The paths queued for playback, in order.
  public var queue: [String]
  /// The zero-based index of the current track in ``queue``, when there is one.
  public var index: Int?
  /// Increases by one with every published change.
  public var revision: UInt64
  /// The device the server plays the stream to (a PulseAudio sink name), as the server last reported it;
  /// nil before the first stream was opened, and on outputs that have no devices.
  public var device: String?

  /// Creates a state; the defaults describe a player with nothing loaded.
  public init(
    status: PlaybackStatus = .idle, track: TrackInfo? = nil, position: ConfirmedPosition = .zero,
    volume: Int = 100, queue: [String] = [], index: Int? = nil, revision: UInt64 = 0, device: String? = nil
  ) {
    self.status = status
    self.track = track
    self.position = position
    self.volume = volume
    self.queue = queue
    self.index = index
    self.revision = revision
    self.device = device
  }

  /// The state before anything was loaded.
  public static let initial = PlayerState()

  /// True when `other` describes the same player, ignoring the revision, and the confirmation time of a
  /// position that is not moving (a paused position confirmed again is no news).
  ///
  /// Used to decide whether an acknowledgement changed anything worth publishing.
  public func sameContent(as other: PlayerState) -> Bool {
    var other = other
    other.revision = revision
    if position.rate == 0, other.position.rate == 0 { other.position.confirmedAt = position.confirmedAt }
    return self == other
  }
}

extension PlayerState: Codable {
  private enum CodingKeys: String, CodingKey {
    case status, error, track, position, volume, queue, index, revision, device
  }

  /// Encodes the state as the JSON documented in docs/protocol.md: `status` is a name, a failure adds `error`.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(status.name, forKey: .status)
    if case .failed(let error) = status { try c.encode(error, forKey: .error) }
    try c.encodeIfPresent(track, forKey: .track)
    try c.encode(position, forKey: .position)
    try c.encode(volume, forKey: .volume)
    try c.encode(queue, forKey: .queue)
    try c.encodeIfPresent(index, forKey: .index)
    try c.encode(revision, forKey: .revision)
    try c.encodeIfPresent(device, forKey: .device)
  }

  /// Decodes the JSON form written by ``encode(to:)``.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let name = try c.decode(String.self, forKey: .status)
    let status: PlaybackStatus
    switch name {
    case "idle": status = .idle
    case "loading": status = .loading
    case "playing": status = .playing
    case "paused": status = .paused
    case "stopped": status = .stopped
    case "ended": status = .ended
    case "failed": status = .failed(try c.decode(PlayerError.self, forKey: .error))
    default:
      throw DecodingError.dataCorruptedError(forKey: .status, in: c, debugDescription: "unknown status \(name)")
    }
    self.init(
      status: status,
      track: try c.decodeIfPresent(TrackInfo.self, forKey: .track),
      position: try c.decode(ConfirmedPosition.self, forKey: .position),
      volume: try c.decode(Int.self, forKey: .volume),
      queue: try c.decode([String].self, forKey: .queue),
      index: try c.decodeIfPresent(Int.self, forKey: .index),
      revision: try c.decode(UInt64.self, forKey: .revision),
      device: try c.decodeIfPresent(String.self, forKey: .device))
  }
}
