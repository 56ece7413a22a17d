import Foundation
import PlayerCore
import PlayerLibrary
import Testing

/// Folders and playlists expanded against a real file tree.
@Suite struct TrackListExpanderTests {
  /// A temporary folder, removed at the end of the test.
  final class Tree {
    let root: String
    init() throws {
      root = FileManager.default.temporaryDirectory.path + "/splay-tree-\(UInt32.random(in: 0...UInt32.max))"
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A copy of a committed fixture at `relative` (folders made as needed).
    @discardableResult
    func audio(_ relative: String, from fixture: String = Fixtures.shortFLAC) throws -> String {
      let path = root + "/" + relative
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: fixture, toPath: path)
      return path
    }

    @discardableResult
    func text(_ relative: String, _ contents: String) throws -> String {
      let path = root + "/" + relative
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try contents.write(toFile: path, atomically: false, encoding: .utf8)
      return path
    }
  }

  @Test func aFolderGivesItsAudioFilesRecursivelyInNaturalOrder() throws {
    let tree = try Tree()
    try tree.audio("Music/Album 10/1 - x.flac")
    try tree.audio("Music/Album 2/10 - x.flac")
    try tree.audio("Music/Album 2/2 - x.flac", from: Fixtures.media("ladder-44k-stereo.mp3"))
    try tree.audio("Music/Album 2/Ünïcode ☃.ogg", from: Fixtures.media("ladder-44k-stereo.ogg"))
    try tree.audio("Music/.hidden/secret.flac")
    try tree.audio("Music/.dot.flac")
    try tree.text("Music/Album 2/cover.jpg", "\u{FF}\u{D8}not audio")
    try tree.text("Music/Album 2/notes.flac", "text with an audio name")
    try tree.text("Music/Album 2/album.m3u", "10 - x.flac\n")
    let list = TrackListExpander().expand([tree.root + "/Music"])
    let relative = list.paths.map { String($0.dropFirst(tree.root.count + 1)) }
    #expect(
      relative == [
        "Music/Album 2/2 - x.flac", "Music/Album 2/10 - x.flac", "Music/Album 2/Ünïcode ☃.ogg",
        "Music/Album 10/1 - x.flac",
      ])
    #expect(list.summaries == [tree.root + "/Music: 4 tracks"])
    #expect(list.skipped.isEmpty)
  }

  @Test func aSymlinkLoopIsWalkedOnce() throws {
    let tree = try Tree()
    try tree.audio("a/b/song.flac")
    try FileManager.default.createSymbolicLink(atPath: tree.root + "/a/b/up", withDestinationPath: "..")
    let list = TrackListExpander().expand([tree.root + "/a"])
    #expect(list.paths == [tree.root + "/a/b/song.flac"])
  }

  @Test func anM3uResolvesRelativeEntriesFromItsFolderAndReportsMissingOnes() throws {
    let tree = try Tree()
    try tree.audio("music/a song.flac")
    try tree.audio("music/sub/b.flac")
    let list = try tree.text(
      "lists/mix.m3u8",
      "#EXTM3U\r\n#EXTINF:1,A\r\n../music/a song.flac\r\ngone.flac\r\n../music/sub\r\nsmb://nas/x.flac\r\n"
        + "HTTPS://radio.example/live\r\n")
    let expanded = TrackListExpander().expand([list])
    // `lists/../music` names the same folder as `music`: the shorter form is shown.
    // A stream is queued as it is; the decoder says whether it plays.
    #expect(
      expanded.paths == [
        tree.root + "/music/a song.flac", tree.root + "/music/sub/b.flac", "HTTPS://radio.example/live",
      ])
    #expect(
      expanded.skipped.map(\.message) == [
        "\(list):4: \(tree.root)/lists/gone.flac: no such file",
        "\(list):6: smb://nas/x.flac: cannot decode: only local files and http(s) streams can be played",
      ])
    #expect(expanded.summaries.last == "\(list): 3 tracks, 2 skipped")
  }

  @Test func aPlaylistThatIncludesItselfIsFollowedOnce() throws {
    let tree = try Tree()
    try tree.audio("a.flac")
    try tree.text("b.pls", "[playlist]\nFile1=a.pls\nFile2=a.flac\n")
    let a = try tree.text("a.pls", "[playlist]\nFile1=a.flac\nFile2=b.pls\nFile3=a.pls\n")
    let expanded = TrackListExpander().expand([a])
    #expect(expanded.paths == [tree.root + "/a.flac", tree.root + "/a.flac"])
    #expect(expanded.skipped.count == 2)
    #expect(expanded.skipped.allSatisfy { $0.message.hasSuffix("this playlist was followed already") })
  }

  @Test func fileUrlsAreDecoded() throws {
    let tree = try Tree()
    let song = try tree.audio("with space é.flac")
    let encoded = song.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
    let list = try tree.text("l.m3u", "file://\(encoded)\n")
    #expect(TrackListExpander().expand([list]).paths == [song])
  }

  @Test func filesPassThroughAsNamedEvenWhenMissing() {
    let named = ["/no/such.flac", Fixtures.shortFLAC]
    #expect(TrackListExpander().expand(named).paths == named)
    #expect(!TrackListExpander.needsExpansion(["/no/such.wav", Fixtures.stereoWAV]))
    #expect(
      TrackListExpander.needsExpansion(named), "a FLAC file may hold a cue sheet: looked at off the socket's loop")
  }

  @Test func collectingStopsPastTheLimitSoTheQueueRefusesIt() throws {
    let tree = try Tree()
    for i in 1...5 { try tree.audio("many/\(i).flac") }
    let list = TrackListExpander(limit: 3).expand([tree.root + "/many"])
    #expect(list.paths.count == 4)
    let command = TrackListExpander(limit: 3).expand(.load([tree.root + "/many"]))
    guard case .success(.load(let paths)) = command.command else {
      Issue.record("\(command)")
      return
    }
    #expect(paths.count == 4)
  }

  /// Big folders are probed on every core: the files between two subfolders keep their order, every text
  /// file with an audio name is still left out, and the limit still counts one past.
  @Test func aBigFolderIsProbedConcurrentlyInOrder() throws {
    let tree = try Tree()
    var expected: [String] = []
    for i in 1...400 {
      if i % 3 == 0 {
        try tree.text("big/\(i).flac", "not audio \(i)")
      } else {
        expected.append(try tree.audio("big/\(i).flac"))
      }
      if i == 200 { expected.append(try tree.audio("big/200a/inside.flac")) }
    }
    #expect(TrackListExpander().expand([tree.root + "/big"]).paths == expected)
    #expect(TrackListExpander(limit: 250).expand([tree.root + "/big"]).paths == Array(expected.prefix(251)))
  }

  @Test func aFolderWithNothingToPlayFailsTheLoadNamingIt() throws {
    let tree = try Tree()
    try tree.text("empty/readme.txt", "hello")
    let expanded = TrackListExpander().expand(.enqueue([tree.root + "/empty"]))
    #expect(expanded.command == .failure(.noTracks(path: tree.root + "/empty")))
  }

  @Test func theContentProbeKnowsTheFixturesAndRefusesTheRest() {
    for name in try! FileManager.default.contentsOfDirectory(atPath: Fixtures.root + "/media") {
      #expect(AudioContentProbe.looksLikeAudio(atPath: Fixtures.media(name)), "\(name)")
    }
    for name in ["text.wav", "empty.wav", "random-bytes.flac", "directory.flac"] {
      #expect(!AudioContentProbe.looksLikeAudio(atPath: Fixtures.broken(name)), "\(name)")
    }
  }
}

extension TrackListExpanderTests {
  /// `..` is taken out only where it names the same file: through a symbolic link it may not.
  @Test func aDotDotThroughASymbolicLinkStaysAsWritten() throws {
    let tree = try Tree()
    try tree.audio("real/deep/song.flac")
    try tree.audio("song.flac")
    try FileManager.default.createSymbolicLink(
      atPath: tree.root + "/link", withDestinationPath: tree.root + "/real/deep")
    let list = try tree.text("list.m3u", "link/../deep/song.flac\n")
    let expanded = TrackListExpander().expand([list])
    // The kernel resolves link/.. to real/, where deep/song.flac is; the lexical deep/song.flac is not there.
    #expect(expanded.paths == [tree.root + "/link/../deep/song.flac"])
  }
}
