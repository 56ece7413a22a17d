import PlayerLibrary

/// One track as the index holds it: where it is, the file it comes from as it was when read, and its tags.
public struct IndexedTrack: Sendable, Equatable {
  /// What a queue holds: a file's path, or a cue track's (``PlayerLibrary/CueTrackPath``).
  public var path: String
  /// The file whose size and time decide whether the track must be read again (a cue track's sheet).
  public var stamp: FileStamp
  /// The tags read from it.
  public var tags: TrackTags

  /// Creates a track.
  public init(path: String, stamp: FileStamp, tags: TrackTags) {
    self.path = path
    self.stamp = stamp
    self.tags = tags
  }
}

/// The tags the index keeps and searches.
public struct TrackTags: Sendable, Equatable {
  /// The title.
  public var title: String?
  /// The artist.
  public var artist: String?
  /// The album.
  public var album: String?
  /// The track number on its album, as tagged (`3` or `3/12`).
  public var trackNumber: String?
  /// The date or year, as tagged.
  public var date: String?
  /// The length in seconds.
  public var duration: Double?

  /// Creates tags.
  public init(
    title: String? = nil, artist: String? = nil, album: String? = nil, trackNumber: String? = nil, date: String? = nil,
    duration: Double? = nil
  ) {
    self.title = title
    self.artist = artist
    self.album = album
    self.trackNumber = trackNumber
    self.date = date
    self.duration = duration
  }
}
