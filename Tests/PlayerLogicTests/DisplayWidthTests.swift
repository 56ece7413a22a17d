import PlayerCore
import Testing

@Suite struct DisplayWidthTests {
  @Test func wideCharactersAndEmojiTakeTwoColumnsAndMarksNone() {
    #expect(DisplayWidth.columns(of: "abc") == 3)
    #expect(DisplayWidth.columns(of: "日本語") == 6)
    #expect(DisplayWidth.columns(of: "한국어") == 6)
    #expect(DisplayWidth.columns(of: "🎵") == 2)
    #expect(DisplayWidth.columns(of: "e\u{301}") == 1, "e and a combining acute accent")
    #expect(DisplayWidth.columns(of: "ＡＢ") == 4, "fullwidth letters")
    #expect(DisplayWidth.columns(of: "a\u{200B}b") == 2, "a zero-width space")
  }

  @Test func fittingCutsByColumnsAndMarksTheCut() {
    #expect(DisplayWidth.fitted("日本語のタイトル", to: 7) == "日本語…")
    #expect(DisplayWidth.columns(of: DisplayWidth.fitted("日本語のタイトル", to: 7)) == 7)
    #expect(DisplayWidth.fitted("short", to: 10) == "short")
    #expect(DisplayWidth.padded("ab", to: 4) == "ab  ")
    for width in 1...20 {
      #expect(DisplayWidth.columns(of: DisplayWidth.fitted("x🎵日本e\u{301}語 title", to: width)) <= width)
    }
  }

  @Test func controlCharactersFromTagsNeverReachTheTerminal() {
    let hostile = "Title\u{1B}[2J\u{7}\u{9B}31m"
    #expect(
      !DisplayWidth.fitted(hostile, to: 80).unicodeScalars.contains {
        $0.value < 0x20 || (0x7F..<0xA0).contains($0.value)
      })
  }
}
