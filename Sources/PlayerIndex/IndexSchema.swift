import GRDB

/// The index's tables, made by GRDB's migrator: `track` holds each track's path, stamp and tags; `track_text`
/// (FTS5, trigram tokenizer) holds the same title, artist, album and path folded for search, with the track's
/// id as its rowid.
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
    return migrator
  }
}
