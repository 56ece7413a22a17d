import GRDB

/// The index's tables, made by GRDB's migrator: `track` holds each track's path, stamp and tags, and what
/// `splay info` prints of it; `track_text` (FTS5, trigram tokenizer) holds the same title, artist, album and path
/// folded for search, with the track's id as its rowid.
enum IndexSchema {
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("tracks") { db in
      try db.execute(
        sql: """
          CREATE TABLE track (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            size INTEGER NOT NULL,
            modified INTEGER NOT NULL,
            title TEXT, artist TEXT, album TEXT, trackNumber TEXT, date TEXT, duration REAL);
          CREATE VIRTUAL TABLE track_text USING fts5(title, artist, album, path, tokenize = 'trigram');
          """)
    }
    // What `splay info` prints (format, bitrate, damage, ReplayGain). Rows read before it are read again by the
    // next scan: their stamps are made to differ; they are still searched meanwhile.
    migrator.registerMigration("facts") { db in
      try db.execute(
        sql: """
          ALTER TABLE track ADD COLUMN format TEXT;
          ALTER TABLE track ADD COLUMN sampleRate INTEGER;
          ALTER TABLE track ADD COLUMN channels INTEGER;
          ALTER TABLE track ADD COLUMN frames INTEGER;
          ALTER TABLE track ADD COLUMN bitDepth INTEGER;
          ALTER TABLE track ADD COLUMN bitrate INTEGER;
          ALTER TABLE track ADD COLUMN damage TEXT;
          ALTER TABLE track ADD COLUMN trackGain REAL;
          ALTER TABLE track ADD COLUMN trackPeak REAL;
          ALTER TABLE track ADD COLUMN albumGain REAL;
          ALTER TABLE track ADD COLUMN albumPeak REAL;
          UPDATE track SET size = -1;
          """)
    }
    return migrator
  }
}
