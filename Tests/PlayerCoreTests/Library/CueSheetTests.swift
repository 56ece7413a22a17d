import AudioTestSupport
import Foundation
import PlayerCore
import PlayerDecoding
import Testing

@testable import PlayerLibrary

/// Cue sheets against real files: the tracks a sheet or a folder gives, and each track decoded as the frames of
/// its file between its start and the next track's, tagged by the sheet.
@Suite struct CueSheetTests {
  typealias Tree = TrackListExpanderTests.Tree

  /// The 3 s ladder (132,300 frames at 44.1 kHz) cut at 1.1333 s (85 CD frames) and 2.0667 s (155), the third
  /// track with a pregap from 2 s.
  static let sheet = """
    PERFORMER "The Ladder"
    TITLE "Steps"
    REM DATE 2026
    FILE "ladder.wav" WAVE
      TRACK 01 AUDIO
        TITLE "Low"
        INDEX 01 00:00:00
      TRACK 02 AUDIO
        TITLE "Middle"
        INDEX 01 00:01:10
      TRACK 03 AUDIO
        TITLE "High"
        PERFORMER "The Top Step"
        INDEX 00 00:02:00
        INDEX 01 00:02:05
    """
  static let boundaries: [Int64] = [0, 85 * 588, 155 * 588, 132_300]

  /// A folder holding the ladder as FLAC and a sheet that names the WAV it was ripped to.
  private static func album(_ tree: Tree) throws -> String {
    try tree.audio("Album/ladder.flac", from: Fixtures.stereoFLAC)
    try tree.audio("Album/bonus.flac", from: Fixtures.shortFLAC)
    return try tree.text("Album/ladder.cue", sheet)
  }

  @Test func aFolderGivesTheSheetsTracksInPlaceOfItsFile() throws {
    let tree = try Tree()
    let sheet = try Self.album(tree)
    try tree.audio("Album/a-first.flac", from: Fixtures.shortFLAC)
    // A FIFO named like a sheet is not opened (it would wait for a writer).
    #expect(mkfifo(tree.root + "/Album/pipe.cue", 0o600) == 0)
    let list = TrackListExpander().expand([tree.root + "/Album"])
    let album = tree.root + "/Album/"
    #expect(
      list.paths == [
        album + "a-first.flac", album + "bonus.flac", sheet + "/track01", sheet + "/track02", sheet + "/track03",
      ])
    #expect(list.skipped.isEmpty)
  }

  @Test func aSheetNamedGivesItsTracksAndReportsAFileThatIsNotThere() throws {
    let tree = try Tree()
    let sheet = try Self.album(tree)
    #expect(TrackListExpander().expand([sheet]).paths == (1...3).map { sheet + "/track0\($0)" })
    let broken = try tree.text("Album/two.cue", "FILE \"gone.wav\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n")
    let list = TrackListExpander().expand([broken])
    #expect(list.paths.isEmpty)
    #expect(list.skipped.map(\.error) == [.fileNotFound(path: tree.root + "/Album/gone.wav"), .noTracks(path: broken)])
    #expect(TrackListExpander.needsExpansion([sheet]))
  }

  @Test func aPlaylistCarriesCueTracksAndAFolderTakesOneSheetPerFile() throws {
    let tree = try Tree()
    let sheet = try Self.album(tree)
    let list = try tree.text(
      "list.m3u8", "Album/ladder.cue/track02\nAlbum/ladder.cue/track09\nAlbum/none.cue/track01\n")
    let expanded = TrackListExpander().expand([list])
    #expect(expanded.paths == [sheet + "/track02", sheet + "/track09"], "a track the sheet lacks fails when played")
    #expect(expanded.skipped.map(\.error) == [.fileNotFound(path: tree.root + "/Album/none.cue/track01")])
    // A second sheet of the same album: the first in the folder's order is taken, the album queued once.
    try tree.text("Album/ladder (other).cue", "FILE \"ladder.flac\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n")
    let folder = TrackListExpander().expand([tree.root + "/Album"]).paths
    #expect(folder.filter { $0.contains("ladder") }.count == 1, "\(folder)")
    #expect(folder.contains(tree.root + "/Album/ladder (other).cue/track01"))
  }

  @Test func aCueTracksPictureIsItsFilesAndItsProblemsAreSaid() throws {
    let tree = try Tree()
    let sheet = try Self.album(tree)
    let cover = try tree.text("Album/cover.jpg", "\u{FF}\u{D8}picture")
    #expect(CoverArt.find(forTrackAt: sheet + "/track02") == cover)
    let bad = try tree.text("Album/bad.cue", "FILE \"ladder.flac\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:61:00\n")
    let list = TrackListExpander().expand([bad])
    #expect(list.summaries.contains(bad + ":3: INDEX needs a number and a time mm:ss:ff"), "\(list.summaries)")
  }

  @Test func eachTrackIsItsFilesFramesBetweenItsStartAndTheNext() throws {
    let tree = try Tree()
    let sheet = try Self.album(tree)
    let whole = try decodedLeft(Fixtures.stereoFLAC).samples
    let factory = CueTrackDecoderFactory(opening: StandardDecoderFactory())
    for number in 1...3 {
      let decoder = try factory.open(sheet + "/track0\(number)")
      let (start, end) = (Self.boundaries[number - 1], Self.boundaries[number])
      #expect(decoder.info.frames == end - start, "track \(number)")
      #expect(decoder.info.path == sheet + "/track0\(number)")
      #expect(decoder.info.title == ["Low", "Middle", "High"][number - 1])
      #expect(decoder.info.artist == (number == 3 ? "The Top Step" : "The Ladder"))
      #expect(decoder.info.album == "Steps" && decoder.info.date == "2026" && decoder.info.trackNumber == "\(number)")
      #expect(try left(of: decoder) == Array(whole[Int(start)..<Int(end)]), "track \(number): its own frames")
    }
    // Seeks stay within the track, counted from its start.
    let middle = try factory.open(sheet + "/track02")
    #expect(try middle.seek(toFrame: 1_000) == 1_000)
    #expect(try left(of: middle).first == whole[Int(Self.boundaries[1]) + 1_000])
    #expect(try middle.seek(toFrame: 10_000_000) == middle.info.frames)
    #expect(try left(of: middle).isEmpty, "past its end, a track reads nothing")
  }

  /// Rows: the sheet's text, the track asked for, and the error.
  @Test func aTrackThatCannotBeOpenedSaysWhy() throws {
    let tree = try Tree()
    let sheet = try Self.album(tree)
    let factory = CueTrackDecoderFactory(opening: StandardDecoderFactory())
    #expect(
      throws: PlayerError.unsupportedFormat(path: sheet + "/track07", detail: "the cue sheet has no audio track 7")
    ) {
      try factory.open(sheet + "/track07")
    }
    let late = try tree.text("Album/late.cue", "FILE \"ladder.flac\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:04:00\n")
    #expect(
      throws: PlayerError.unsupportedFormat(
        path: late + "/track01", detail: "the cue sheet starts this track at 0:04.000, but its file ends at 0:03.000")
    ) { try factory.open(late + "/track01") }
    #expect(throws: PlayerError.fileNotFound(path: tree.root + "/none.cue/track01")) {
      try factory.open(tree.root + "/none.cue/track01")
    }
  }

  /// The ladder with the sheet above inside, `as` a `CUESHEET` block (`metaflac --import-cuesheet-from`), a
  /// `CUESHEET` comment holding its text, or both.
  private static func embedded(_ tree: Tree, as kind: String) throws -> String {
    let flac = try tree.audio("Album/ladder.flac", from: Fixtures.stereoFLAC)
    let sheet = try tree.text("ladder.cue", CueSheetTests.sheet)
    let block = "--import-cuesheet-from=" + sheet
    let comment = "--set-tag-from-file=CUESHEET=" + sheet
    let options = ["block": [block], "comment": [comment], "both": [block, comment]][kind] ?? []
    for option in options {
      let result = try ChildProcess.run(["/usr/bin/metaflac", option, flac], timeout: 30)
      try #require(result.status == 0, "metaflac \(option) failed: \(result.stderr)")
    }
    return flac
  }

  @Test(
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/metaflac"), "needs metaflac (Debian's flac)"),
    arguments: ["block", "comment", "both"])
  func aFLACFileWithASheetInsideGivesItsTracksNamedOrInAFolder(kind: String) throws {
    let tree = try Tree()
    let flac = try Self.embedded(tree, as: kind)
    let sheet = try #require(FLACCueSheet.read(atPath: flac))
    let rate = 44_100
    #expect(sheet.tracks.map { $0.start.frame(sampleRate: rate) } == Array(Self.boundaries.dropLast()))
    let pregap = sheet.tracks.last?.pregap.map { $0.frame(sampleRate: rate) }
    #expect(pregap == Int64(2 * 44_100))
    #expect(FLACCueSheet.read(atPath: Fixtures.stereoFLAC) == nil, "a FLAC file without a sheet has none")
    let tracks = (1...3).map { flac + "/track0\($0)" }
    #expect(TrackListExpander().expand([flac]).paths == tracks, "named, it gives its tracks")
    #expect(TrackListExpander().expand([tree.root + "/Album"]).paths == tracks, "in a folder too")
    // Up to the limit of FLAC files in the folder (a folder named like one is none), each is looked into.
    let limit = TrackListExpander.flacFilesPerFolderLookedInto
    let others = try (1..<limit).map { try tree.audio("Album/track\($0).flac", from: Fixtures.shortFLAC) }
    try FileManager.default.createDirectory(atPath: tree.root + "/Album/z.flac", withIntermediateDirectories: false)
    #expect(TrackListExpander().expand([tree.root + "/Album"]).paths == tracks + others)
    // One more is an album of one file per track: each plays whole.
    let last = try tree.audio("Album/track\(limit).flac", from: Fixtures.shortFLAC)
    #expect(TrackListExpander().expand([tree.root + "/Album"]).paths == [flac] + others + [last])
    // A `.cue` beside it wins over the sheet inside.
    try FileManager.default.createDirectory(atPath: tree.root + "/Covered", withIntermediateDirectories: false)
    try FileManager.default.copyItem(atPath: flac, toPath: tree.root + "/Covered/ladder.flac")
    let beside = try tree.text("Covered/ladder.cue", Self.sheet)
    #expect(TrackListExpander().expand([tree.root + "/Covered"]).paths == (1...3).map { beside + "/track0\($0)" })
    let whole = try decodedLeft(Fixtures.stereoFLAC).samples
    let middle = try CueTrackDecoderFactory(opening: StandardDecoderFactory()).open(tracks[1])
    let (start, end) = (Int(Self.boundaries[1]), Int(Self.boundaries[2]))
    #expect(try left(of: middle) == Array(whole[start..<end]))
    #expect(middle.info.title == (kind == "block" ? nil : "Middle"), "a block has no titles; the comment wins")
  }

  /// A `CUESHEET` block cut short, or one whose tracks go backwards, gives no sheet; the lead-out and data tracks
  /// give no track.
  @Test func aCueSheetBlockIsReadWithinItsBytes() {
    func track(_ number: UInt8, at offset: UInt64, data: Bool = false, indexes: [(UInt8, UInt64)]) -> [UInt8] {
      var bytes = withUnsafeBytes(of: offset.bigEndian, Array.init) + [number] + Array(repeating: 0, count: 12)
      bytes += [data ? 0x80 : 0] + Array(repeating: 0, count: 13) + [UInt8(indexes.count)]
      for (index, at) in indexes { bytes += withUnsafeBytes(of: at.bigEndian, Array.init) + [index, 0, 0, 0] }
      return bytes
    }
    let head = [UInt8](repeating: 0, count: 128 + 8 + 1 + 258)
    let tracks = [
      track(1, at: 0, indexes: [(1, 0)]), track(2, at: 1_000, data: true, indexes: [(1, 0)]),
      track(3, at: 2_000, indexes: [(0, 0), (1, 588)]), track(170, at: 9_000, indexes: [(1, 0)]),
    ]
    let block = head + [4] + tracks.joined()
    let sheet = FLACCueSheet.fromBlock(block)
    #expect(sheet?.tracks.map(\.number) == [1, 3])
    #expect(sheet?.tracks.map(\.start) == [.samples(0), .samples(2_588)])
    #expect(sheet?.tracks.last?.pregap == .samples(2_000))
    for cut in [0, 100, head.count, block.count - 1] {
      #expect(FLACCueSheet.fromBlock(Array(block.prefix(cut))) == nil, "cut at \(cut)")
    }
    let backwards = head + [2] + track(1, at: 5_000, indexes: [(1, 0)]) + track(2, at: 1_000, indexes: [(1, 0)])
    #expect(FLACCueSheet.fromBlock(backwards) == nil)
  }

  private func left(of decoder: any AudioDecoder) throws -> [Float] {
    var left: [Float] = []
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1_000 * decoder.info.channels)
    defer { buffer.deallocate() }
    while case let frames = try decoder.read(into: buffer, frames: 1_000), frames > 0 {
      for f in 0..<frames { left.append(buffer[f * decoder.info.channels]) }
    }
    return left
  }
}
