/// What the decoder learned about a track when it opened the file.
///
/// Copy-on-write, like ``PlayerState``: a track travels in every confirmation and published state, and a copy
/// costs one reference count rather than a copy of its strings.
public struct TrackInfo: Equatable, Hashable, Sendable {
  private struct Fields: Hashable, Sendable {
    var path: String
    var format: String
    var sampleRate: Int
    var channels: Int
    var frames: Int64
    var title: String?
    var artist: String?
    var album: String?
    var trackNumber: String?
    var date: String?
    var bitDepth: Int?
    var bitrate: Int?
    var damage: String?
    var gain: AppliedGain?
    var isLive: Bool
  }

  private var fields: CopyOnWrite<Fields>

  /// The path the track was loaded from, as given.
  public var path: String {
    get { fields.value.path }
    _modify { yield &fields.value.path }
  }
  /// The container/codec name, for example `FLAC` or `OGG/Vorbis`.
  public var format: String {
    get { fields.value.format }
    _modify { yield &fields.value.format }
  }
  /// Frames per second of the decoded audio.
  public var sampleRate: Int {
    get { fields.value.sampleRate }
    _modify { yield &fields.value.sampleRate }
  }
  /// Interleaved channels per frame.
  public var channels: Int {
    get { fields.value.channels }
    _modify { yield &fields.value.channels }
  }
  /// Total frames, as the decoder reports them.
  public var frames: Int64 {
    get { fields.value.frames }
    _modify { yield &fields.value.frames }
  }
  /// The `TITLE` tag, when the file has one.
  public var title: String? {
    get { fields.value.title }
    _modify { yield &fields.value.title }
  }
  /// The `ARTIST` tag, when the file has one.
  public var artist: String? {
    get { fields.value.artist }
    _modify { yield &fields.value.artist }
  }
  /// The `ALBUM` tag, when the file has one.
  public var album: String? {
    get { fields.value.album }
    _modify { yield &fields.value.album }
  }

  /// The track number as tagged (`3`, or `3/12`), when the file has one.
  public var trackNumber: String? {
    get { fields.value.trackNumber }
    _modify { yield &fields.value.trackNumber }
  }
  /// The `DATE` (or year) tag, when the file has one.
  public var date: String? {
    get { fields.value.date }
    _modify { yield &fields.value.date }
  }
  /// Bits per sample of the stored audio, for PCM and lossless formats; nil for lossy ones.
  public var bitDepth: Int? {
    get { fields.value.bitDepth }
    _modify { yield &fields.value.bitDepth }
  }
  /// Average bits per second of the file (its size over its duration), when known.
  public var bitrate: Int? {
    get { fields.value.bitrate }
    _modify { yield &fields.value.bitrate }
  }

  /// What is wrong with the file when it plays only in part ("the audio ends at 1:26.012 of the 3:00.000 its
  /// header declares (truncated)"); `frames` is then what plays. Nil for a whole file.
  public var damage: String? {
    get { fields.value.damage }
    _modify { yield &fields.value.damage }
  }

  /// The ReplayGain applied to the samples, nil when ReplayGain is off.
  public var gain: AppliedGain? {
    get { fields.value.gain }
    _modify { yield &fields.value.gain }
  }

  /// A live stream (internet radio): no length, no seeking; `frames` is 0 and the position is the audible time
  /// since it started.
  public var isLive: Bool {
    get { fields.value.isLive }
    _modify { yield &fields.value.isLive }
  }

  /// Creates track information; normally only a decoder does this.
  public init(
    path: String, format: String, sampleRate: Int, channels: Int, frames: Int64,
    title: String? = nil, artist: String? = nil, album: String? = nil, trackNumber: String? = nil,
    date: String? = nil, bitDepth: Int? = nil, bitrate: Int? = nil, damage: String? = nil, gain: AppliedGain? = nil,
    isLive: Bool = false
  ) {
    fields = CopyOnWrite(
      Fields(
        path: path, format: format, sampleRate: sampleRate, channels: channels, frames: frames, title: title,
        artist: artist, album: album, trackNumber: trackNumber, date: date, bitDepth: bitDepth, bitrate: bitrate,
        damage: damage, gain: gain, isLive: isLive))
  }

  /// The length of the track in seconds; infinite for a live stream, so that a position is never clamped to it.
  public var duration: Double {
    if isLive { return .infinity }
    return sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0
  }

  /// The title when tagged, otherwise the file name: what a view shows.
  public var displayTitle: String {
    if let title, !title.isEmpty { return title }
    return path.split(separator: "/").last.map(String.init) ?? path
  }
}

extension TrackInfo: CustomDebugStringConvertible {
  /// Every field, as a test failure or the debugger should show it (not the storage that holds them).
  public var debugDescription: String { "TrackInfo\(String(describing: fields.value).dropFirst("Fields".count))" }
}
