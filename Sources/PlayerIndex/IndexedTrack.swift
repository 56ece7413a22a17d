import PlayerCore
import PlayerLibrary

/// One track as the index holds it: where it is, the file it comes from as it was when read, and its tags.
public struct IndexedTrack: Sendable, Equatable {
  /// What a queue holds: a file's path, or a cue track's (``PlayerLibrary/CueTrackPath``).
  public var path: String
  /// The file whose size and time decide whether the track must be read again (a cue track's sheet).
  public var stamp: FileStamp
  /// The tags read from it.
  public var tags: TrackTags
  /// What `splay info` says of it, when the reader gave it.
  public var facts: TrackFacts?

  /// Creates a track.
  public init(path: String, stamp: FileStamp, tags: TrackTags, facts: TrackFacts? = nil) {
    self.path = path
    self.stamp = stamp
    self.tags = tags
    self.facts = facts
  }
}

/// What a scan read of a track: the tags it searches, and what `splay info` prints of it.
public struct TrackReading: Sendable, Equatable {
  /// The tags searched.
  public var tags: TrackTags
  /// The decoder's view of the track and its ReplayGain tags; nil from a reader that does not give them.
  public var facts: TrackFacts?

  /// A reading of `tags` only.
  public init(tags: TrackTags) {
    self.tags = tags
  }

  /// A reading of what the decoders saw: the tags are the info's.
  public init(facts: TrackFacts) {
    let info = facts.info
    tags = TrackTags(
      title: info.title, artist: info.artist, album: info.album, trackNumber: info.trackNumber, date: info.date,
      duration: info.duration.isFinite ? info.duration : nil)
    self.facts = facts
  }
}

/// What `splay info` prints of a track, kept so that it need not open a file the index read unchanged.
public struct TrackFacts: Sendable, Equatable {
  /// What the decoders saw (format, length, bitrate, tags, damage).
  public var info: TrackInfo
  /// Its ReplayGain tags.
  public var gains: ReplayGainTags

  /// Creates facts.
  public init(info: TrackInfo, gains: ReplayGainTags) {
    self.info = info
    self.gains = gains
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
