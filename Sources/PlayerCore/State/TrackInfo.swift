/// What the decoder learned about a track when it opened the file.
public struct TrackInfo: Equatable, Hashable, Codable, Sendable {
  /// The path the track was loaded from, as given.
  public var path: String
  /// The container/codec name, for example `FLAC` or `OGG/Vorbis`.
  public var format: String
  /// Frames per second of the decoded audio.
  public var sampleRate: Int
  /// Interleaved channels per frame.
  public var channels: Int
  /// Total frames, as the decoder reports them.
  public var frames: Int64
  /// The `TITLE` tag, when the file has one.
  public var title: String?
  /// The `ARTIST` tag, when the file has one.
  public var artist: String?
  /// The `ALBUM` tag, when the file has one.
  public var album: String?

  /// Creates track information; normally only a decoder does this.
  public init(
    path: String, format: String, sampleRate: Int, channels: Int, frames: Int64,
    title: String? = nil, artist: String? = nil, album: String? = nil
  ) {
    self.path = path
    self.format = format
    self.sampleRate = sampleRate
    self.channels = channels
    self.frames = frames
    self.title = title
    self.artist = artist
    self.album = album
  }

  /// The length of the track in seconds.
  public var duration: Double {
    sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0
  }

  /// The title when tagged, otherwise the file name: what a view shows.
  public var displayTitle: String {
    if let title, !title.isEmpty { return title }
    return path.split(separator: "/").last.map(String.init) ?? path
  }

  private enum CodingKeys: String, CodingKey {
    case path, format, sampleRate, channels, frames, duration, title, artist, album
  }

  /// Encodes the track, including the derived `duration` for the benefit of JSON readers.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(path, forKey: .path)
    try c.encode(format, forKey: .format)
    try c.encode(sampleRate, forKey: .sampleRate)
    try c.encode(channels, forKey: .channels)
    try c.encode(frames, forKey: .frames)
    try c.encode(duration, forKey: .duration)
    try c.encodeIfPresent(title, forKey: .title)
    try c.encodeIfPresent(artist, forKey: .artist)
    try c.encodeIfPresent(album, forKey: .album)
  }

  /// Decodes a track; `duration` is derived and therefore ignored.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      path: try c.decode(String.self, forKey: .path),
      format: try c.decode(String.self, forKey: .format),
      sampleRate: try c.decode(Int.self, forKey: .sampleRate),
      channels: try c.decode(Int.self, forKey: .channels),
      frames: try c.decode(Int64.self, forKey: .frames),
      title: try c.decodeIfPresent(String.self, forKey: .title),
      artist: try c.decodeIfPresent(String.self, forKey: .artist),
      album: try c.decodeIfPresent(String.self, forKey: .album))
  }
}
