import PlayerLibrary
import Testing

/// What the cue sheet reader takes from a sheet, as rippers write them: album fields before the first track,
/// track fields after, times in CD frames, several files, pregaps, and the encodings sheets come in.
@Suite struct CueSheetParserTests {
  private static let album = """
    REM GENRE Electronic
    REM DATE 1997
    PERFORMER "Björk"
    TITLE "Homogenic"
    FILE "Björk - Homogenic.flac" WAVE
      TRACK 01 AUDIO
        TITLE "Hunter"
        INDEX 01 00:00:00
      TRACK 02 AUDIO
        TITLE "Jóga"
        PERFORMER "Björk & the Icelandic String Octet"
        INDEX 00 04:13:70
        INDEX 01 04:15:00
      TRACK 03 AUDIO
        TITLE "Unravel"
        INDEX 01 09:20:74
    """

  private static func parse(_ text: String) -> CueSheet {
    CueSheetParser.parse(Array(text.utf8))
  }

  @Test func anAlbumInOneFile() {
    let sheet = Self.parse(Self.album)
    #expect(sheet.title == "Homogenic" && sheet.performer == "Björk" && sheet.date == "1997")
    #expect(sheet.problems.isEmpty)
    #expect(sheet.tracks.map(\.number) == [1, 2, 3])
    #expect(sheet.tracks.map(\.title) == ["Hunter", "Jóga", "Unravel"])
    #expect(sheet.tracks.map(\.performer) == [nil, "Björk & the Icelandic String Octet", nil])
    #expect(sheet.tracks.allSatisfy { $0.file == "Björk - Homogenic.flac" })
    // mm:ss:ff, 75 frames a second.
    #expect(
      sheet.tracks.map(\.start) == [0, (4 * 60 + 15) * 75, (9 * 60 + 20) * 75 + 74].map(CueSheet.Position.cdFrames))
    #expect(sheet.tracks[1].pregap == .cdFrames((4 * 60 + 13) * 75 + 70))
    // A track ends where the next one's INDEX 01 begins: the pregap plays as the end of the track before it.
    #expect(sheet.end(ofTrack: 0) == sheet.tracks[1].start)
    #expect(sheet.end(ofTrack: 2) == nil, "the last track plays to the end of its file")
  }

  @Test func cdFramesAreExactAudioFramesAtTheCommonRates() {
    #expect(CueSheet.Position.cdFrames(1).frame(sampleRate: 44_100) == 588)
    #expect(CueSheet.Position.cdFrames(75).frame(sampleRate: 48_000) == 48_000)
    #expect(CueSheet.Position.cdFrames(155).frame(sampleRate: 96_000) == 198_400)
    #expect(CueSheet.Position.samples(12_345).frame(sampleRate: 96_000) == 12_345)
  }

  @Test func severalFilesEachTrackInTheFileOfItsStart() {
    // The non-standard "gaps appended" layout: track 2's pregap is at the end of the first file.
    let sheet = Self.parse(
      """
      FILE "one.wav" WAVE
      TRACK 01 AUDIO
      INDEX 01 00:00:00
      TRACK 02 AUDIO
      INDEX 00 03:58:00
      FILE "two.wav" WAVE
      INDEX 01 00:00:00
      TRACK 03 AUDIO
      INDEX 01 04:00:00
      """)
    #expect(sheet.tracks.map(\.file) == ["one.wav", "two.wav", "two.wav"])
    #expect(sheet.end(ofTrack: 0) == nil, "the next track starts in another file: this one plays to its end")
    #expect(sheet.end(ofTrack: 1) == .cdFrames(4 * 60 * 75))
    #expect(sheet.problems.isEmpty)
  }

  /// Rows: the bytes of a sheet, and the title it gives the album.
  static let encodings: [([UInt8], String)] = [
    ([0xEF, 0xBB, 0xBF] + Array("TITLE \"Café\"\r\n".utf8), "Café"),
    (Array("TITLE \"Caf".utf8) + [0xE9] + Array("\"\r".utf8), "Café"),
    (Array("title Plain\n".utf8), "Plain"),
    ([0xFF, 0xFE] + "TITLE \"Ünï\"\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, "Ünï"),
    ([0xFE, 0xFF] + "TITLE \"東京\"\n".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }, "東京"),
    (
      Array("TITLE \"It".utf8) + [0x92] + Array("s ".utf8) + [0x96] + Array(" Caf".utf8) + [0xE9, 0x22, 0x0A],
      "It’s – Café"
    ),
    (Array("TITLE \"no closing quote\n".utf8), "no closing quote"),
  ]

  @Test(arguments: encodings)
  func encodingsAndLineEnds(bytes: [UInt8], title: String) {
    #expect(CueSheetParser.parse(bytes).title == title)
  }

  @Test func whatCannotBeTakenIsReportedByLineAndTheRestIsKept() {
    let sheet = Self.parse(
      """
      TRACK 01 AUDIO
      INDEX 01 00:00:00
      FILE "a.wav" WAVE
      TRACK 02 AUDIO
      INDEX 01 00:61:00
      INDEX 01 01:00:00
      TRACK 03 MODE1/2352
      INDEX 01 02:00:00
      TRACK 04 AUDIO
      INDEX 01 00:30:00
      TRACK 05 AUDIO
      TITLE "no index"
      TRACK
      INDEX 01 03:00:00
      """)
    #expect(sheet.tracks.map(\.number) == [2], "track 3 is data; tracks 1, 4 and 5 are refused")
    #expect(sheet.tracks.first?.start == .cdFrames(60 * 75))
    #expect(
      sheet.problems.map(\.line) == [1, 2, 5, 9, 11, 13],
      "\(sheet.problems.map { "\($0.line): \($0.reason)" })")
  }
}
