import PlayerCore

/// What a list of arguments (files, folders, playlists) comes to: the tracks to queue, in order, and what
/// was left out on the way.
public struct TrackList: Sendable, Equatable {
  /// The files to queue, in play order.
  public var paths: [String] = []
  /// Entries that were named but cannot be queued, one line each.
  public var skipped: [SkippedEntry] = []
  /// One line per folder or playlist: what it gave ("Music/: 143 tracks").
  public var summaries: [String] = []

  /// An empty list.
  public init() {}
}

/// An entry left out of a ``TrackList``, and why.
public struct SkippedEntry: Sendable, Equatable {
  /// Where it was named: a playlist and line (`list.m3u:4`), or nil for an argument.
  public var origin: String?
  /// Why it was left out (the error names the entry's path).
  public var error: PlayerError

  /// Creates an entry left out for `error`, named at `origin`.
  public init(origin: String?, error: PlayerError) {
    self.origin = origin
    self.error = error
  }

  /// One line for a person: `list.m3u:4: gone.flac: no such file`.
  public var message: String {
    origin.map { "\($0): \(error.message)" } ?? error.message
  }
}
