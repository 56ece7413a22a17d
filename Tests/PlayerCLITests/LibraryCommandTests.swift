import AudioTestSupport
import Foundation
import Testing

/// `splay library`, `splay search`, `play --search` and `ctl load --search`, run as a user runs them: a folder
/// of tagged files, the index and the roots in the scratch folder's XDG directories.
@Suite struct LibraryCommandTests {
  /// A folder of two tagged FLAC files and the XDG variables that put the library beside it.
  struct Collection {
    let scratch: ScratchDirectory
    let music: String
    let bjork: String
    let tokyo: String
    var environment: [String: String] {
      ["XDG_CACHE_HOME": scratch.path + "/cache", "XDG_STATE_HOME": scratch.path + "/state"]
    }
    var index: String { scratch.path + "/cache/splay/library.sqlite" }

    init() throws {
      scratch = try ScratchDirectory("splay-library")
      music = scratch.path + "/Music"
      try FileManager.default.createDirectory(atPath: music + "/Björk/Post", withIntermediateDirectories: true)
      bjork = music + "/Björk/Post/06 Hyperballad.flac"
      tokyo = music + "/tokyo.flac"
      for (path, tags) in [
        (bjork, ["TITLE=Hyperballad", "ARTIST=Björk", "ALBUM=Post"]), (tokyo, ["TITLE=東京の夜", "ARTIST=宇多田ヒカル"]),
      ] {
        try FileManager.default.copyItem(atPath: Splay.fixture("media/short-44k-stereo.flac"), toPath: path)
        let tagged = try Splay.run(
          ["--remove-all-tags"] + tags.map { "--set-tag=" + $0 } + [path], program: "/usr/bin/metaflac")
        #expect(tagged.status == 0, "\(tagged.stderr)")
      }
    }

    func run(_ arguments: [String], stdin: String? = nil) throws -> Splay.Result {
      try Splay.run(arguments, environment: environment, stdin: stdin)
    }
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/metaflac"), "needs metaflac"))
  func aFolderAddedIsSearchedByTagsAndPathsAndPlayedBySearch() throws {
    let collection = try Collection()
    let added = try collection.run(["library", "add", collection.music])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stderr.contains("library: 2 tracks under 1 root: 2 read, 0 removed, 0 unreadable"), "\(added.stderr)")
    #expect(try collection.run(["library", "roots"]).stdout == collection.music + "\n")

    #expect(try collection.run(["search", "bjork", "HYPER"]).stdout == collection.bjork + "\n")
    #expect(try collection.run(["search", "東京"]).stdout == collection.tokyo + "\n")
    #expect(try collection.run(["library", "search", "artist:ヒカル"]).stdout == collection.tokyo + "\n")
    let long = try collection.run(["search", "--long", "album:post"])
    #expect(long.stdout == "Björk\tHyperballad\tPost\t2.0\t\(collection.bjork)\n", "\(long.stderr)")
    let none = try collection.run(["search", "artist:post"])
    #expect(none.status == 1)
    #expect(none.stderr == "splay: search 'artist:post': no track matches\n")
    #expect(try collection.run(["search"]).status == 2)

    let played = try collection.run(["play", "--json", "--output", "simulated", "--search", "flac"])
    #expect(played.status == 0, "\(played.stderr)")
    #expect(played.queue == [collection.bjork, collection.tokyo])
    // With files named too, a search that finds nothing is said and the files play (exit 3 at the end).
    let filesToo = try collection.run(["play", "--json", "--output", "simulated", collection.tokyo, "--search", "zzz"])
    #expect(filesToo.status == 3)
    #expect(filesToo.queue == [collection.tokyo])
    #expect(filesToo.statuses.last == "ended")
    #expect(filesToo.stderr.contains("search 'zzz': no track in the library matches"), "\(filesToo.stderr)")
    let nothing = try collection.run(["play", "--output", "simulated", "--search", "zzz"])
    #expect(nothing.status == 3)
    #expect(nothing.stderr.contains("splay: search 'zzz': no track in the library matches"), "\(nothing.stderr)")

    // Scanned again unchanged: nothing read. A file gone leaves the index.
    #expect(try collection.run(["library", "scan"]).stderr.contains("2 tracks under 1 root: 0 read, 0 removed"))
    try FileManager.default.removeItem(atPath: collection.tokyo)
    #expect(try collection.run(["library", "scan"]).stderr.contains("1 tracks under 1 root: 0 read, 1 removed"))
    #expect(try collection.run(["search", "東京"]).status == 1)
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/metaflac"), "needs metaflac"))
  func aDamagedIndexIsMadeAgainFromTheRootsWithAMessage() throws {
    let collection = try Collection()
    #expect(try collection.run(["library", "add", collection.music]).status == 0)
    try Data(repeating: 0x42, count: 10_000).write(to: URL(fileURLWithPath: collection.index))
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: collection.index + suffix) }
    let found = try collection.run(["search", "hyperballad"])
    #expect(found.status == 0, "\(found.stderr)")
    #expect(found.stdout == collection.bjork + "\n")
    #expect(found.stderr.contains("the library index was damaged (file is not a database); made again"))
    // Deleted, it costs a scan and nothing else: the roots are kept apart from it.
    try FileManager.default.removeItem(atPath: collection.index)
    #expect(try collection.run(["library", "scan"]).status == 0)
    #expect(try collection.run(["search", "hyperballad"]).stdout == collection.bjork + "\n")
  }

  @Test func mistakesAreOneLineEachWithTheirExitStatus() throws {
    let collection = try Collection()
    let missing = try collection.run(["library", "add", collection.scratch.path + "/nowhere"])
    #expect(missing.status == 3)
    #expect(missing.stderr == "splay: \(collection.scratch.path)/nowhere: No such file or directory\n")
    let notRoot = try collection.run(["library", "remove", "/tmp"])
    #expect(notRoot.status == 1)
    #expect(notRoot.stderr == "splay: /tmp: not a root of the library\n")
    let empty = try collection.run(["search", "\"\""])
    #expect(empty.status == 1)
    #expect(empty.stderr == "splay: search '\"\"': nothing to search for\n")
    let nothingAdded = try collection.run(["search", "anything"])
    #expect(nothingAdded.status == 1)
    #expect(nothingAdded.stderr == "splay: search 'anything': the library is empty ('splay library add FOLDER')\n")
    let limit = try collection.run(["search", "--limit", "0", "x"])
    #expect(limit.status == 2)
    let resume = try collection.run(["play", "--resume", "--search", "x"])
    #expect(resume.status == 2)
    let unwritable = try Splay.run(
      ["library", "add", collection.music], environment: ["XDG_STATE_HOME": "/proc/splay", "XDG_CACHE_HOME": "/proc"])
    #expect(unwritable.status == 1)
    #expect(unwritable.stderr.hasPrefix("splay: /proc/splay"), "\(unwritable.stderr)")
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/metaflac"), "needs metaflac"))
  func ctlLoadsWhatASearchFindsAndSearchesLocally() throws {
    let collection = try Collection()
    #expect(try collection.run(["library", "add", collection.music]).status == 0)
    let server = try Server()
    let load = try collection.run(["ctl", "--socket", server.path, "--json", "load", "--search", "hyperballad"])
    #expect(load.status == 0, "\(load.stderr)")
    let queue = try collection.run(["ctl", "--socket", server.path, "queue", "--json"])
    #expect(queue.stdout.contains("06 Hyperballad.flac"), "\(queue.stdout)")
    let enqueue = try collection.run(["ctl", "--socket", server.path, "enqueue", "--search=東京"])
    #expect(enqueue.status == 0, "\(enqueue.stderr)")
    let status = try collection.run(["ctl", "--socket", server.path, "status", "--json"])
    #expect(status.stdout.contains("\"queueLength\":2"), "\(status.stdout)")
    let search = try collection.run(["ctl", "search", "bjork"])
    #expect(search.stdout == collection.bjork + "\n")
    let none = try collection.run(["ctl", "--socket", server.path, "load", "--search", "zzz"])
    #expect(none.status == 3)
    #expect(none.stderr.contains("no track in the library matches"))
  }

  /// `splay info` over a long list answers from the index for files it read unchanged (same size and time), and
  /// reads the others; a short list, or no index, is read from the files. A file made unreadable behind the
  /// index's back, its size and time kept, shows which answered.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/metaflac"), "needs metaflac"))
  func infoAnswersFromTheIndexForFilesItReadUnchanged() throws {
    let collection = try Collection()
    let many = collection.music + "/many"
    try FileManager.default.createDirectory(atPath: many, withIntermediateDirectories: true)
    for number in 1...16 {
      try FileManager.default.copyItem(
        atPath: Splay.fixture("media/short-44k-stereo.flac"), toPath: many + "/\(number).flac")
    }
    let fromFiles = try collection.run(["info", collection.music])
    #expect(fromFiles.status == 0, "\(fromFiles.stderr)")
    #expect(fromFiles.stdout.split(separator: "\n").count == 18)
    let jsonFromFiles = try collection.run(["info", "--json", collection.music])
    #expect(try collection.run(["library", "add", collection.music]).status == 0)
    #expect(try collection.run(["info", collection.music]).stdout == fromFiles.stdout)
    #expect(try collection.run(["info", "--json", collection.music]).stdout == jsonFromFiles.stdout)
    // An entry left out still makes the exit status 3, the rest answered.
    let missing = collection.scratch.path + "/missing.flac"
    let incomplete = try collection.run(["info", collection.music, missing])
    #expect(incomplete.status == 3)
    #expect(incomplete.stdout == fromFiles.stdout)
    #expect(incomplete.stderr.contains(missing), "\(incomplete.stderr)")

    // Retitled in place ("Short ladder" to "Other ladder"), its size and time as the index read them.
    let retitled = many + "/1.flac"
    let reference = collection.scratch.path + "/reference"
    #expect(FileManager.default.createFile(atPath: reference, contents: nil))
    #expect(try Splay.run(["-r", retitled, reference], program: "/usr/bin/touch").status == 0)
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: retitled)))
    let title = Array("Short ladder".utf8)
    let at = try #require(bytes.indices.first { bytes[$0...].starts(with: title) })
    bytes.replaceSubrange(at..<at + title.count, with: Array("Other ladder".utf8))
    try Data(bytes).write(to: URL(fileURLWithPath: retitled))
    #expect(try Splay.run(["-r", reference, retitled], program: "/usr/bin/touch").status == 0)
    let cached = try collection.run(["info", collection.music])
    #expect(cached.status == 0, "\(cached.stderr)")
    #expect(cached.stdout == fromFiles.stdout, "the index answered for the unchanged stamp")
    let cachedJSON = try collection.run(["info", "--json", collection.music])
    #expect(cachedJSON.stdout == jsonFromFiles.stdout, "the index answered --json too")
    // Named relative to the working folder, the index still answers, with the paths as given.
    let relative = try Splay.run(
      ["info", "Music"], environment: collection.environment, directory: collection.scratch.path)
    #expect(relative.stdout == fromFiles.stdout.replacingOccurrences(of: collection.scratch.path + "/", with: ""))
    let alone = try collection.run(["info", retitled])
    #expect(alone.stdout.contains("title \"Other ladder\""), "one file is read, not looked up: \(alone.stdout)")

    // Its time changed: read again.
    #expect(try Splay.run([retitled], program: "/usr/bin/touch").status == 0)
    let read = try collection.run(["info", collection.music])
    #expect(read.status == 0)
    let expected = fromFiles.stdout.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      line.hasPrefix(retitled + ":")
        ? line.replacingOccurrences(of: "Short ladder", with: "Other ladder") : String(line)
    }
    #expect(read.stdout == expected.joined(separator: "\n"))
    #expect(read.stdout != fromFiles.stdout)
  }

  /// A cue track's lines come from its sheet and from the audio file the sheet names: a change of that file alone
  /// (its ReplayGain tags written, the sheet untouched) is read again, not answered from the index.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/metaflac"), "needs metaflac"))
  func infoReadsACueTrackAgainWhenItsAudioFileChanged() throws {
    let collection = try Collection()
    let live = collection.music + "/live"
    try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Splay.fixture("media/sweep-30s.flac"), toPath: live + "/live.flac")
    let tracks = (1...16).map { number in
      "  TRACK \(String(format: "%02d", number)) AUDIO\n    TITLE \"Part \(number)\"\n"
        + "    INDEX 01 00:\(String(format: "%02d", number - 1)):00\n"
    }
    let sheet = "FILE \"live.flac\" WAVE\n" + tracks.joined()
    try sheet.write(toFile: live + "/live.cue", atomically: true, encoding: .utf8)
    #expect(try collection.run(["library", "add", collection.music]).status == 0)
    let before = try collection.run(["info", live])
    #expect(before.status == 0, "\(before.stderr)")
    #expect(before.stdout.split(separator: "\n").count == 16)
    #expect(!before.stdout.contains("replaygain"))

    let tagged = try Splay.run(
      ["--set-tag=REPLAYGAIN_TRACK_GAIN=-3.00 dB", live + "/live.flac"], program: "/usr/bin/metaflac")
    #expect(tagged.status == 0, "\(tagged.stderr)")
    let after = try collection.run(["info", live])
    #expect(after.status == 0, "\(after.stderr)")
    #expect(after.stdout.split(separator: "\n").count == 16)
    #expect(
      after.stdout.split(separator: "\n").allSatisfy { $0.contains("replaygain track -3.00 dB") },
      "the index answered with what the audio file held before: \(after.stdout)")
  }

  /// Two `splay library scan` processes at once, while a third process searches, leave a sound index: each
  /// command succeeds (one writer at a time, WAL), and SQLite finds nothing wrong with the file after.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3"))
  func scansInTwoProcessesWhileAThirdSearchesLeaveASoundIndex() throws {
    let collection = try Collection()
    let many = collection.music + "/many"
    for number in 0..<600 {
      let folder = many + "/\(number % 20)"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        atPath: Splay.fixture("media/short-44k-stereo.flac"), toPath: folder + "/\(number).flac")
    }
    #expect(try collection.run(["library", "add", "--no-scan", collection.music]).status == 0)
    let environment = ProcessInfo.processInfo.environment.merging(collection.environment) { $1 }
    let log = collection.scratch.path
    let scans = try (0..<2).map { number in
      try ChildProcess(
        [Splay.binary, "library", "scan"], environment: environment, stderr: log + "/scan\(number).log")
    }
    let searches = try ChildProcess(
      [
        "/bin/sh", "-c",
        "for i in $(seq 30); do '\(Splay.binary)' search --allow-none ladder >/dev/null || exit 9; done",
      ],
      environment: environment, stderr: log + "/search.log")
    for (number, scan) in scans.enumerated() {
      let status = scan.wait(timeout: 60)
      let text = (try? String(contentsOfFile: log + "/scan\(number).log", encoding: .utf8)) ?? ""
      #expect(status == 0, "scan \(number): \(text)")
    }
    #expect(
      searches.wait(timeout: 60) == 0, "\((try? String(contentsOfFile: log + "/search.log", encoding: .utf8)) ?? "")")
    let check = try Splay.run(
      [collection.index, "PRAGMA integrity_check; SELECT count(*) FROM track;"], program: "/usr/bin/sqlite3")
    #expect(check.stdout == "ok\n602\n", "\(check.stdout)\(check.stderr)")
    #expect(try collection.run(["search", "ladder"]).stdout.split(separator: "\n").count == 600)
  }
}
