import GRDB
import PlayerCore
import PlayerLibrary

#if canImport(Glibc)
  import Glibc
#endif

/// The library index: an SQLite database in WAL mode, so that searches (`serve`, `search`) read while one
/// `scan` writes, and a second writer waits for the first instead of failing. It is a cache: a file that is not
/// an index, or a damaged one, is deleted and made again empty (``open(at:)`` says why), and a scan fills it.
public final class LibraryIndex: Sendable {
  /// The database file.
  public let path: String
  /// A pool (a writer and readers) for scans, one read-only connection for a search.
  let pool: any DatabaseWriter

  private init(path: String, pool: any DatabaseWriter) {
    self.path = path
    self.pool = pool
  }

  /// Opens the index at `path`, creating it (and its folder) when missing. When the file is damaged or not an
  /// index, it is replaced by an empty one, and `rebuilt` says why.
  public static func open(at path: String) throws(LibraryError) -> (index: LibraryIndex, rebuilt: String?) {
    try FileText.makeFolder(of: path)
    do {
      return (try attach(path), nil)
    } catch let error where isDamage(error) {
      let reason = (error as? DatabaseError)?.message ?? "\(error)"
      for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
      do {
        return (try attach(path), reason)
      } catch {
        throw .index(path, Self.describe(error))
      }
    } catch {
      throw .index(path, Self.describe(error))
    }
  }

  /// Opens the index at `path` for searching only: one read-only connection, nothing created, which costs a
  /// search a few milliseconds less than ``open(at:)``. A missing, unfinished or damaged index is opened (and made
  /// again) as ``open(at:)`` does.
  public static func openForSearch(at path: String) throws(LibraryError) -> (index: LibraryIndex, rebuilt: String?) {
    if let ready = openIfReady(at: path) { return (ready, nil) }
    return try open(at: path)
  }

  /// Opens the index at `path` for reading only when it is there and made by this version: nil otherwise, with
  /// nothing created or changed (for `splay info`, which answers from the files when there is no index).
  public static func openIfReady(at path: String) -> LibraryIndex? {
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = .timeout(30)
    guard access(path, R_OK) == 0,
      let queue = try? DatabaseQueue(path: path, configuration: configuration),
      (try? queue.read({ db in try IndexSchema.migrator.hasCompletedMigrations(db) })) == true
    else { return nil }
    return LibraryIndex(path: path, pool: queue)
  }

  private static func attach(_ path: String) throws -> LibraryIndex {
    var configuration = Configuration()
    // A scan holds the write lock for one batch at a time; another writer waits that long, not forever.
    configuration.busyMode = .timeout(30)
    let pool = try whileOpeningAlone(path) {
      let pool = try DatabasePool(path: path, configuration: configuration)
      try IndexSchema.migrator.migrate(pool)
      return pool
    }
    // Reading a page of each table finds a file that SQLite opened but cannot use.
    try pool.read { db in
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM track LIMIT 1)")
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM track_text LIMIT 1)")
    }
    return LibraryIndex(path: path, pool: pool)
  }

  /// Runs `body` holding an exclusive lock on the index's folder (`flock`, for the opening only): GRDB's migrator
  /// reads which migrations were applied before it applies the rest, so two processes making the tables of a
  /// new index at once both made them, and one failed ("duplicate column name: format").
  private static func whileOpeningAlone<T>(_ path: String, _ body: () throws -> T) throws -> T {
    let folder = FileContents.directory(of: path)
    let descriptor = Glibc.open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return try body() }
    defer { close(descriptor) }
    while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
    defer { flock(descriptor, LOCK_UN) }
    return try body()
  }

  /// Whether `error` says the file is not a usable index (rather than, say, a full disk or a lock).
  public static func isDamage(_ error: any Error) -> Bool {
    if let error = error as? LibraryError, case .index(_, let reason) = error { return reason.hasPrefix("damaged:") }
    guard let error = error as? DatabaseError else { return false }
    return [.SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT].contains(error.resultCode)
      || error.message?.contains("no such table") == true
  }

  static func describe(_ error: any Error) -> String {
    guard let error = error as? DatabaseError else { return "\(error)" }
    let reason = error.message ?? "\(error.resultCode)"
    return isDamage(error) ? "damaged: " + reason : reason
  }

  private func run<T>(_ body: () throws -> T) throws(LibraryError) -> T {
    do {
      return try body()
    } catch {
      throw .index(path, Self.describe(error))
    }
  }

  /// Every indexed path with the stamp of the file it was read from.
  public func stamps() throws(LibraryError) -> [String: FileStamp] {
    try run {
      try pool.read { db in
        var stamps: [String: FileStamp] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT path, size, modified FROM track")
        while let row = try rows.next() {
          stamps[row[0]] = FileStamp(size: row[1], modified: row[2])
        }
        return stamps
      }
    }
  }

  /// Adds `tracks`, or replaces those with the same paths, in one transaction.
  public func write(_ tracks: [IndexedTrack]) throws(LibraryError) {
    guard !tracks.isEmpty else { return }
    try run {
      try pool.write { db in
        let upsert = try db.cachedStatement(
          sql: """
            INSERT INTO track (path, size, modified, title, artist, album, trackNumber, date, duration, format,
              sampleRate, channels, frames, bitDepth, bitrate, damage, trackGain, trackPeak, albumGain, albumPeak)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (path) DO UPDATE SET size = excluded.size, modified = excluded.modified,
              title = excluded.title, artist = excluded.artist, album = excluded.album,
              trackNumber = excluded.trackNumber, date = excluded.date, duration = excluded.duration,
              format = excluded.format, sampleRate = excluded.sampleRate, channels = excluded.channels,
              frames = excluded.frames, bitDepth = excluded.bitDepth, bitrate = excluded.bitrate,
              damage = excluded.damage, trackGain = excluded.trackGain, trackPeak = excluded.trackPeak,
              albumGain = excluded.albumGain, albumPeak = excluded.albumPeak
            RETURNING id
            """)
        let unindex = try db.cachedStatement(sql: "DELETE FROM track_text WHERE rowid = ?")
        let index = try db.cachedStatement(
          sql: "INSERT INTO track_text (rowid, title, artist, album, path) VALUES (?, ?, ?, ?, ?)")
        for track in tracks {
          let tags = track.tags
          let (info, gains) = (track.facts?.info, track.facts?.gains)
          guard
            let id = try Int64.fetchOne(
              upsert,
              arguments: [
                track.path, track.stamp.size, track.stamp.modified, tags.title, tags.artist, tags.album,
                tags.trackNumber, tags.date, tags.duration, info?.format, info?.sampleRate, info?.channels,
                info?.frames, info?.bitDepth, info?.bitrate, info?.damage, gains?.trackGain, gains?.trackPeak,
                gains?.albumGain, gains?.albumPeak,
              ])
          else { continue }
          try unindex.execute(arguments: [id])
          let fold = { (text: String?) in text.map(SearchFolding.fold) ?? "" }
          try index.execute(
            arguments: [id, fold(tags.title), fold(tags.artist), fold(tags.album), SearchFolding.fold(track.path)])
        }
      }
    }
  }

  /// Removes the tracks at `paths`, in one transaction.
  public func remove(_ paths: [String]) throws(LibraryError) {
    guard !paths.isEmpty else { return }
    try run {
      try pool.write { db in
        let unindex = try db.cachedStatement(
          sql: "DELETE FROM track_text WHERE rowid = (SELECT id FROM track WHERE path = ?)")
        let delete = try db.cachedStatement(sql: "DELETE FROM track WHERE path = ?")
        for path in paths {
          try unindex.execute(arguments: [path])
          try delete.execute(arguments: [path])
        }
      }
    }
  }

  /// What `splay info` prints of each of `paths` that the index holds it for, with the stamp of the file it was
  /// read from: the caller answers from it only when the file's stamp is still that.
  public func facts(for paths: [String]) throws(LibraryError) -> [String: (stamp: FileStamp, facts: TrackFacts)] {
    try run {
      try pool.read { db in
        let select = try db.cachedStatement(
          sql: """
            SELECT size, modified, title, artist, album, trackNumber, date, format, sampleRate, channels, frames,
              bitDepth, bitrate, damage, trackGain, trackPeak, albumGain, albumPeak
            FROM track WHERE path = ? AND format IS NOT NULL
            """)
        var found: [String: (stamp: FileStamp, facts: TrackFacts)] = [:]
        found.reserveCapacity(paths.count)
        for path in paths {
          // A cursor's row reads the statement in place (while the cursor lives); `fetchOne` copied each row.
          let cursor = try Row.fetchCursor(select, arguments: [path])
          guard let row = try cursor.next(), let format = row[7] as String?, let sampleRate = row[8] as Int?,
            let channels = row[9] as Int?, let frames = row[10] as Int64?
          else { continue }
          let info = TrackInfo(
            path: path, format: format, sampleRate: sampleRate, channels: channels, frames: frames, title: row[2],
            artist: row[3], album: row[4], trackNumber: row[5], date: row[6], bitDepth: row[11], bitrate: row[12],
            damage: row[13])
          let gains = ReplayGainTags(trackGain: row[14], albumGain: row[16], trackPeak: row[15], albumPeak: row[17])
          found[path] = (FileStamp(size: row[0], modified: row[1]), TrackFacts(info: info, gains: gains))
        }
        return found
      }
    }
  }

  /// The title, artist and album the index holds for each of `paths` that it has, joined by spaces (what the
  /// live view's `/` matches words against besides a path); a track without any of them is left out.
  public func tagText(for paths: [String]) throws(LibraryError) -> [String: String] {
    try run {
      try pool.read { db in
        let select = try db.cachedStatement(sql: "SELECT title, artist, album FROM track WHERE path = ?")
        var found: [String: String] = [:]
        for path in paths {
          let cursor = try Row.fetchCursor(select, arguments: [path])
          guard let row = try cursor.next() else { continue }
          let text = [row[0] as String?, row[1] as String?, row[2] as String?].compactMap { $0 }.joined(separator: " ")
          if !text.isEmpty { found[path] = text }
        }
        return found
      }
    }
  }

  /// How many tracks the index holds.
  public func count() throws(LibraryError) -> Int {
    try run { try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM track") ?? 0 } }
  }

  /// The tracks that match `query`, in the natural order of their paths (as a folder plays: 2 before 10); the
  /// first `limit` of them when given.
  public func search(_ query: LibraryQuery, limit: Int? = nil) throws(LibraryError) -> [IndexedTrack] {
    let (condition, arguments) = query.condition
    let sql = """
      SELECT track.path, track.size, track.modified, track.title, track.artist, track.album, track.trackNumber,
        track.date, track.duration
      FROM track_text JOIN track ON track.id = track_text.rowid
      WHERE \(condition)
      """
    let found = try run {
      try pool.read { db in
        try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
          IndexedTrack(
            path: row[0], stamp: FileStamp(size: row[1], modified: row[2]),
            tags: TrackTags(
              title: row[3], artist: row[4], album: row[5], trackNumber: row[6], date: row[7], duration: row[8]))
        }
      }
    }
    let ordered = found.sorted { NaturalOrder.areInIncreasingOrder($0.path, $1.path) }
    return limit.map { Array(ordered.prefix($0)) } ?? ordered
  }
}
