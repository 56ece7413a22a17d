import AudioTestSupport
import Foundation
import PlayerCore
import PlayerIndex
import PlayerLibrary
import Testing

@Suite struct LibraryIndexTests {
  @Test func wordsMatchInsideTagsAndPathsWithCaseAndAccentsIgnored() throws {
    let folder = try LibraryFolder()
    try folder.add("Björk/Post/01.flac", TrackTags(title: "Army of Me", artist: "Björk", album: "Post"))
    try folder.add("Björk/Post/02.flac", TrackTags(title: "Hyperballad", artist: "Björk", album: "Post"))
    try folder.add("Other/école.flac", TrackTags(title: "Leçon", artist: "Someone"))
    try folder.scan()
    #expect(try folder.search("bjork hyper") == ["Björk/Post/02.flac"])
    #expect(try folder.search("BJÖRK") == ["Björk/Post/01.flac", "Björk/Post/02.flac"])
    #expect(try folder.search("ECOLE") == ["Other/école.flac"])
    #expect(try folder.search("lecon") == ["Other/école.flac"])
    #expect(try folder.search("army post") == ["Björk/Post/01.flac"])
    #expect(try folder.search("hyper army").isEmpty)
  }

  @Test func chineseAndJapaneseWordsOfAnyLengthAreFound() throws {
    let folder = try LibraryFolder()
    try folder.add("a.flac", TrackTags(title: "東京の夜", artist: "宇多田ヒカル"))
    try folder.add("b.flac", TrackTags(title: "北京", artist: "王菲"))
    try folder.scan()
    #expect(try folder.search("東京の夜") == ["a.flac"])
    #expect(try folder.search("東京") == ["a.flac"])
    #expect(try folder.search("京") == ["a.flac", "b.flac"])
    #expect(try folder.search("ヒカル") == ["a.flac"])
    #expect(try folder.search("王菲 北京") == ["b.flac"])
  }

  @Test func aPrefixLimitsAWordToOneField() throws {
    let folder = try LibraryFolder()
    try folder.add("1.flac", TrackTags(title: "Post", artist: "Somebody", album: "Other"))
    try folder.add("2.flac", TrackTags(title: "Isobel", artist: "Björk", album: "Post"))
    try folder.add("post/3.flac", TrackTags(title: "Three", artist: "Nobody", album: "Three"))
    try folder.scan()
    #expect(try folder.search("post") == ["1.flac", "2.flac", "post/3.flac"])
    #expect(try folder.search("album:post") == ["2.flac"])
    #expect(try folder.search("title:post") == ["1.flac"])
    #expect(try folder.search("path:post") == ["post/3.flac"])
    #expect(try folder.search("ARTIST:björk album:po") == ["2.flac"])
    #expect(try folder.search("artist:post").isEmpty)
  }

  @Test func quotesKeepWordsTogetherAndOddCharactersAreSearchedAsThemselves() throws {
    let folder = try LibraryFolder()
    try folder.add("1.flac", TrackTags(title: "Homo Genic", album: "100% Pure_Hits"))
    try folder.add("2.flac", TrackTags(title: "Genic Homo", album: "100 Pure Hits"))
    try folder.scan()
    #expect(try folder.search("\"homo genic\"") == ["1.flac"])
    #expect(try folder.search("album:\"pure_hits\"") == ["1.flac"])
    #expect(try folder.search("0%") == ["1.flac"])
    #expect(try folder.search("e_") == ["1.flac"], "_ is itself, not any character")
    #expect(try folder.search("say \"\"\" what").isEmpty)
    #expect(try folder.search("genre:rock").isEmpty, "an unknown prefix is a word, found nowhere")
  }

  @Test func matchesComeInTheNaturalOrderOfTheirPaths() throws {
    let folder = try LibraryFolder()
    for name in ["10.flac", "2.flac", "a/1.flac"] { try folder.add(name, TrackTags(title: "x")) }
    try folder.scan()
    #expect(try folder.search("x") == ["2.flac", "10.flac", "a/1.flac"])
    let first = try folder.index().search(LibraryQuery("x"), limit: 2).map(\.path)
    #expect(first == [folder.music + "/2.flac", folder.music + "/10.flac"])
  }

  @Test func aCueSheetBesideItsFileGivesItsTracksAndFollowsTheSheetsChanges() throws {
    let folder = try LibraryFolder()
    try folder.add("live/live.flac", TrackTags(title: "The whole file"))
    let sheet = folder.music + "/live/live.cue"
    let text =
      "FILE \"live.flac\" WAVE\n  TRACK 01 AUDIO\n    INDEX 01 00:00:00\n  TRACK 02 AUDIO\n    INDEX 01 00:01:00\n"
    try Data(text.utf8).write(to: URL(fileURLWithPath: sheet))
    folder.tag(sheet + "/track01", TrackTags(title: "Opening", artist: "The Band"))
    folder.tag(sheet + "/track02", TrackTags(title: "Closer", artist: "The Band"))
    var report = try folder.scan()
    #expect((report.found, report.read) == (2, 2))
    #expect(try folder.search("band") == ["live/live.cue/track01", "live/live.cue/track02"])
    #expect(try folder.search("whole").isEmpty, "the file plays as its tracks, not once more whole")
    // The sheet is the tracks' stamp: retitled there, they are read again.
    folder.tag(sheet + "/track02", TrackTags(title: "Encore", artist: "The Band"))
    try folder.retag(sheet, TrackTags())
    report = try folder.scan()
    #expect(report.read == 2)
    #expect(try folder.search("encore") == ["live/live.cue/track02"])
  }

  @Test func aQueryWithNothingToFindIsRefused() {
    for text in ["", "   ", "artist:", "\"\""] {
      #expect(throws: LibraryError.query(text)) { try LibraryQuery(text) }
    }
  }

  @Test func aSecondScanReadsOnlyWhatChangedAndDropsWhatIsGone() throws {
    let folder = try LibraryFolder()
    let one = try folder.add("1.flac", TrackTags(title: "One"))
    let two = try folder.add("2.flac", TrackTags(title: "Two"))
    try folder.add("3.flac", TrackTags(title: "Three"))
    var report = try folder.scan()
    #expect((report.found, report.read, report.removed) == (3, 3, 0))

    report = try folder.scan()
    #expect((report.found, report.read, report.removed) == (3, 0, 0))
    #expect(folder.reads == 3)

    try folder.retag(one, TrackTags(title: "Uno"))
    try FileManager.default.removeItem(atPath: two)
    report = try folder.scan()
    #expect((report.found, report.read, report.removed) == (2, 1, 1))
    #expect(try folder.search("uno") == ["1.flac"])
    #expect(try folder.search("one").isEmpty)
    #expect(try folder.search("two").isEmpty)
    #expect(try folder.index().count() == 2)
  }

  @Test func aTrackThatCannotBeReadIsReportedAndLeavesTheIndex() throws {
    let folder = try LibraryFolder()
    let file = try folder.add("1.flac", TrackTags(title: "One"))
    try folder.scan()
    #expect(try folder.search("one") == ["1.flac"])
    // Changed on disk into something the reader refuses, and a new file that it refuses too.
    try folder.retag(file, TrackTags(title: "One"))
    try folder.add("2.flac", TrackTags())
    let refusing = LibraryScanner(index: try folder.index()) { path in .failure(.track("\(path): damaged")) }
    let report = try refusing.scan([folder.music])
    #expect(report.failures == [file + ": damaged", folder.music + "/2.flac: damaged"])
    #expect(report.removed == 1)
    #expect(try folder.index().count() == 0)
  }

  @Test func tracksOutsideTheRootsLeaveTheIndex() throws {
    let folder = try LibraryFolder()
    try folder.add("a/1.flac", TrackTags(title: "One"))
    try folder.add("b/2.flac", TrackTags(title: "Two"))
    try folder.scan([folder.music + "/a", folder.music + "/b"])
    #expect(try folder.index().count() == 2)
    let report = try folder.scan([folder.music + "/b"])
    #expect(report.removed == 1)
    #expect(try folder.search("flac") == ["b/2.flac"])
  }

  @Test func aFileThatIsNotAnIndexIsMadeAgainAndSaysWhy() throws {
    let folder = try LibraryFolder()
    try folder.add("1.flac", TrackTags(title: "One"))
    try folder.scan()
    try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: folder.indexPath))
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.indexPath + suffix) }
    let (index, rebuilt) = try LibraryIndex.open(at: folder.indexPath)
    #expect(rebuilt == "file is not a database")
    #expect(try index.count() == 0)
    try folder.scan(into: index)
    #expect(try folder.search("one", in: index) == ["1.flac"])
    // A sound index is opened as it is.
    #expect(try LibraryIndex.open(at: folder.indexPath).rebuilt == nil)
  }

  @Test func aDamagedPageIsFoundAndTheIndexMadeAgain() throws {
    let folder = try LibraryFolder()
    for number in 0..<2000 { try folder.add("\(number).flac", TrackTags(title: "Track \(number)")) }
    try folder.scan()
    // Checkpointed into the main file and closed; then pages past the header are overwritten.
    _ = try LibraryIndex.open(at: folder.indexPath)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.indexPath))
    try handle.seek(toOffset: 4096)
    try handle.write(contentsOf: Data(repeating: 0xFF, count: 64 * 1024))
    try handle.close()
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.indexPath + suffix) }
    let (index, rebuilt) = try LibraryIndex.open(at: folder.indexPath)
    #expect(rebuilt != nil)
    #expect(try index.count() == 0)
  }

  @Test func twoScansAndASearchAtOnceLeaveASoundIndex() async throws {
    let folder = try LibraryFolder()
    for number in 0..<1500 { try folder.add("\(number % 30)/\(number).flac", TrackTags(title: "Song \(number)")) }
    // Each scanner has its own connection pool, as two processes would.
    let indexes = try (0..<3).map { _ in try folder.index() }
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try folder.scan(into: indexes[0]) }
      group.addTask { try folder.scan(into: indexes[1]) }
      group.addTask {
        for _ in 0..<50 { _ = try indexes[2].search(LibraryQuery("song 1")) }
      }
      try await group.waitForAll()
    }
    #expect(try indexes[2].count() == 1500)
    #expect(try folder.search("song 1499") == ["29/1499.flac"])
    #expect(try LibraryIndex.open(at: folder.indexPath).rebuilt == nil)
  }

  @Test func rootsAreKeptAbsoluteAndWhole() throws {
    let folder = try LibraryFolder()
    #expect(LibraryRoots.normalize("Music/./a/../b/", workingDirectory: "/home/u") == "/home/u/Music/b")
    #expect(LibraryRoots.normalize("/x//y", workingDirectory: "/w") == "/x/y")
    let roots = LibraryRoots(path: folder.path + "/state/library-roots")
    #expect(try roots.read() == [])
    try roots.write(["/a", "/b c/ä"])
    #expect(try roots.read() == ["/a", "/b c/ä"])
  }

  @Test func locationsFollowTheBaseDirectorySpecification() {
    let home = LibraryLocations(environment: ["HOME": "/home/u"])
    #expect(
      home
        == LibraryLocations(
          index: "/home/u/.cache/splay/library.sqlite", roots: "/home/u/.local/state/splay/library-roots"))
    let xdg = LibraryLocations(environment: ["HOME": "/home/u", "XDG_CACHE_HOME": "/c", "XDG_STATE_HOME": "relative"])
    #expect(
      xdg == LibraryLocations(index: "/c/splay/library.sqlite", roots: "/home/u/.local/state/splay/library-roots"))
    #expect(LibraryLocations(environment: [:]) == nil)
  }

  @Test func whatInfoPrintsIsKeptWithTheStampItWasReadAt() throws {
    let folder = try LibraryFolder()
    let index = try folder.index()
    let full = TrackFacts(
      info: TrackInfo(
        path: "/m/a.flac", format: "FLAC", sampleRate: 44100, channels: 2, frames: 88200, title: "Army of Me",
        artist: "Björk", album: "Post", trackNumber: "1/11", date: "1995", bitDepth: 16, bitrate: 1_017_000,
        damage: "the audio ends at 0:01.000 (truncated)"),
      gains: ReplayGainTags(trackGain: -6.2, albumGain: -4, trackPeak: 0.988547, albumPeak: 1))
    let bare = TrackFacts(
      info: TrackInfo(path: "/m/b.opus", format: "Opus", sampleRate: 48000, channels: 1, frames: 0),
      gains: ReplayGainTags())
    let stamp = FileStamp(size: 10, modified: 20)
    try index.write([
      IndexedTrack(path: "/m/a.flac", stamp: stamp, tags: TrackReading(facts: full).tags, facts: full),
      IndexedTrack(path: "/m/b.opus", stamp: stamp, tags: TrackReading(facts: bare).tags, facts: bare),
      IndexedTrack(path: "/m/c.flac", stamp: stamp, tags: TrackTags(title: "read without facts")),
    ])
    let found = try index.facts(for: ["/m/a.flac", "/m/b.opus", "/m/c.flac", "/m/gone.flac"])
    #expect(Set(found.keys) == ["/m/a.flac", "/m/b.opus"])
    #expect(found["/m/a.flac"]?.facts == full)
    #expect(found["/m/a.flac"]?.stamp == stamp)
    #expect(found["/m/b.opus"]?.facts == bare)
    #expect(try index.search(LibraryQuery("army")).map(\.tags) == [TrackReading(facts: full).tags])
  }

  /// An index written before it kept what `info` prints: opened, its tracks are still found, and the next scan
  /// reads them all again (their stamps no longer match) so that it holds it.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3"))
  func anIndexFromBeforeFactsWereKeptIsReadAgainByTheNextScan() throws {
    let folder = try LibraryFolder()
    let file = try folder.add("1.flac", TrackTags(title: "One"))
    let stamp = try #require(FileStamp(path: file))
    try FileManager.default.createDirectory(
      atPath: (folder.indexPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let old = try ChildProcess.run(
      [
        "/usr/bin/sqlite3", folder.indexPath,
        """
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('tracks');
        CREATE TABLE track (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,
          modified INTEGER NOT NULL, title TEXT, artist TEXT, album TEXT, trackNumber TEXT, date TEXT, duration REAL);
        CREATE VIRTUAL TABLE track_text USING fts5(title, artist, album, path, tokenize = 'trigram');
        INSERT INTO track VALUES (1, '\(file)', \(stamp.size), \(stamp.modified), 'One', NULL, NULL, NULL, NULL, 2.0);
        INSERT INTO track_text (rowid, title, artist, album, path) VALUES (1, 'one', '', '', '\(file.lowercased())');
        """,
      ])
    #expect(old.status == 0, "\(old.stderr)")
    #expect(try folder.search("one") == ["1.flac"], "found before the scan")
    let report = try folder.scan()
    #expect((report.found, report.read) == (1, 1))
    #expect(folder.reads == 1)
  }
}
