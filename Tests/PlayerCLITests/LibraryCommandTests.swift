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
}
