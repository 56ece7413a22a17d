import PlayerLibrary

/// Brings the index up to date with the roots: walks them as `splay play` expands folders (cue sheets give
/// their tracks), reads the tags of a file that is new or whose size or time changed, and removes the tracks of
/// files that are gone or no longer under a root. Writes go in batches, each one transaction, so that a search
/// meanwhile sees the index as of the last batch and an interrupted scan keeps what it had done.
public struct LibraryScanner: Sendable {
  /// What a scan did.
  public struct Report: Sendable, Equatable {
    /// Tracks found under the roots.
    public var found = 0
    /// Tracks whose tags were read (new or changed files).
    public var read = 0
    /// Tracks removed from the index.
    public var removed = 0
    /// Tracks that could not be read (kept out of the index), with the reason.
    public var failures: [String] = []
    /// Entries the walk left out (unreadable folders, broken cue sheets), one line each.
    public var skipped: [String] = []

    /// Creates an empty report.
    public init() {}
  }

  /// How far a scan has got.
  public struct Progress: Sendable, Equatable {
    /// Tracks looked at.
    public var done: Int
    /// Tracks found in all.
    public var total: Int
  }

  /// Reads a track's tags (and what `splay info` prints of it), or says why it cannot.
  public typealias TagReader = @Sendable (String) -> Result<TrackReading, LibraryError>

  let index: LibraryIndex
  let readTags: TagReader
  /// Tracks written per transaction.
  var batchSize = 500

  /// A scanner that writes to `index` and reads tags with `readTags`.
  public init(index: LibraryIndex, readTags: @escaping TagReader) {
    self.index = index
    self.readTags = readTags
  }

  /// Scans `roots`; `progress` is called now and then (at most once per batch).
  public func scan(
    _ roots: [String], progress: (Progress) -> Void = { _ in }
  ) throws(LibraryError) -> Report {
    var report = Report()
    // No queue's limit: the index takes a whole collection (half of Int.max leaves the walk room to count past it).
    let expansion = TrackListExpander(limit: .max / 2).expand(roots)
    report.skipped = expansion.skipped.map(\.message)
    let known = try index.stamps()
    report.found = expansion.paths.count
    var batch: [IndexedTrack] = []
    var seen = Set<String>()
    for (number, path) in expansion.paths.enumerated() {
      guard seen.insert(path).inserted else { continue }
      // Gone since the walk: its entry, if any, leaves the index with the others not found.
      guard let stamp = FileStamp(track: path) else {
        seen.remove(path)
        continue
      }
      if known[path] == stamp { continue }
      switch readTags(path) {
      case .success(let reading):
        batch.append(IndexedTrack(path: path, stamp: stamp, tags: reading.tags, facts: reading.facts))
        report.read += 1
      case .failure(let error):
        report.failures.append(error.message)
        seen.remove(path)
      }
      if batch.count >= batchSize {
        try index.write(batch)
        batch.removeAll(keepingCapacity: true)
        progress(Progress(done: number + 1, total: report.found))
      }
    }
    try index.write(batch)
    // Known tracks not found under any root, or that cannot be read any more.
    let gone = known.keys.filter { !seen.contains($0) }
    for start in stride(from: 0, to: gone.count, by: batchSize) {
      try index.remove(Array(gone[start..<min(start + batchSize, gone.count)]))
    }
    report.removed = gone.count
    progress(Progress(done: report.found, total: report.found))
    return report
  }
}
