import PlayerCore
import PlayerLibrary
import Testing

@Suite struct PlaylistParserTests {
  @Test func m3uKeepsEntriesInOrderAndSkipsCommentsBlankLinesAndTheByteOrderMark() {
    let text =
      "\u{FEFF}#EXTM3U\r\n#EXTINF:123,Artist - Title\r\n01 - a b.flac\r\n\r\n  /abs/ü.flac  \r\n# note\n../up.ogg"
    let entries = PlaylistParser.entries(of: Array(text.utf8), kind: .m3u)
    #expect(entries.map(\.location) == ["01 - a b.flac", "/abs/ü.flac", "../up.ogg"])
    #expect(entries.map(\.line) == [3, 5, 7])
  }

  @Test func aLatin1M3uIsReadAsLatin1() {
    // "Beyoncé.mp3" written by an old Windows player: é is the single byte 0xE9, not valid UTF-8.
    let bytes = Array("Beyonc".utf8) + [0xE9] + Array(".mp3\n".utf8)
    #expect(PlaylistParser.entries(of: bytes, kind: .m3u).map(\.location) == ["Beyoncé.mp3"])
  }

  @Test func plsIsOrderedByEntryNumber() {
    let text =
      "[playlist]\nFile2=second.flac\nTitle2=Two\nFile1=first.flac\nFile10=tenth.flac\nNumberOfEntries=3\nVersion=2\n"
    let entries = PlaylistParser.entries(of: Array(text.utf8), kind: .pls)
    #expect(entries.map(\.location) == ["first.flac", "second.flac", "tenth.flac"])
    #expect(entries.map(\.line) == [4, 2, 5])
  }

  @Test func theKindComesFromTheExtensionInAnyCase() {
    #expect(PlaylistParser.kind(ofPath: "a/List.M3U8") == .m3u)
    #expect(PlaylistParser.kind(ofPath: "radio.pls") == .pls)
    #expect(PlaylistParser.kind(ofPath: "a.m3u/song.flac") == nil)
    #expect(PlaylistParser.kind(ofPath: "song.flac") == nil)
  }
}
