import PlayerCore
import Testing

@testable import PlayerDecoding
@testable import PlayerPulse

/// What a radio stream says besides its audio: ICY blocks, FFmpeg's reconnect messages, and the titles waiting
/// for their audio to be heard.
@Suite struct StreamMetadataTests {
  static func title(_ block: [UInt8]) -> String? {
    block.withUnsafeBufferPointer { ICYMetadata.streamTitle(in: $0) }
  }

  @Test(
    arguments: [
      ("StreamTitle='Artist - Song';StreamUrl='';", "Artist - Song"),
      ("StreamTitle='Don't Stop';", "Don't Stop"),
      ("StreamUrl='x';StreamTitle='Second';", "Second"),
      ("StreamTitle='Björk - Jóga';\0\0\0", "Björk - Jóga"),
      ("StreamTitle='unterminated", "unterminated"),
      ("StreamTitle='';", nil),
      ("StreamTitle='  ';", nil),
      ("StreamUrl='only';", nil),
      ("", nil),
    ] as [(String, String?)])
  func icyBlocksGiveTheirStreamTitle(block: String, title: String?) {
    #expect(Self.title(Array(block.utf8)) == title)
  }

  @Test func aTitleThatIsNotUTF8IsReadAsLatin1() {
    // "Café" from an old Shoutcast server: é is 0xE9.
    let block = Array("StreamTitle='Caf".utf8) + [0xE9] + Array("';".utf8)
    #expect(Self.title(block) == "Café")
  }

  @Test func ffmpegsReconnectMessageIsSaidAsAPersonWould() {
    let message = "Will reconnect at 123456 in 0 second(s), error=End of file.\n"
    #expect(
      FFmpegStream.reconnectNotice(message, attempts: 1, gaveUp: false)
        == "the connection dropped (End of file); reconnected")
    #expect(
      FFmpegStream.reconnectNotice(message, attempts: 3, gaveUp: false)
        == "the connection dropped (End of file); reconnected (3 attempts)")
    #expect(
      FFmpegStream.reconnectNotice("Will reconnect at 0 in 0 second(s)", attempts: 4, gaveUp: true)
        == "the connection dropped; could not reconnect (4 attempts)")
  }

  @Test func titlesWaitUntilTheirAudioIsHeard() {
    var marks = TitleMarks()
    #expect(marks.wait(from: 0) == nil)
    marks.add([TitleChange(frame: 44_100, title: "One"), TitleChange(frame: 88_200, title: "Two")], sampleRate: 44_100)
    #expect(marks.wait(from: 0.25) == 0.75)
    #expect(marks.heard(by: 0.999).isEmpty)
    #expect(marks.heard(by: 1.0) == ["One"])
    #expect(marks.wait(from: 1.5) == 0.5)
    marks.add([TitleChange(frame: 132_300, title: "Three")], sampleRate: 44_100)
    // Late (a stalled clock): both heard at once, in order.
    #expect(marks.heard(by: 3.5) == ["Two", "Three"])
    #expect(marks.wait(from: 3.5) == nil)
    marks.add([TitleChange(frame: 441_000, title: "Four")], sampleRate: 44_100)
    marks.removeAll()
    #expect(marks.heard(by: 100).isEmpty, "a seek forgets them")
  }
}
