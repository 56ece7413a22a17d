import Foundation
import Testing

@Suite struct InfoCommandTests {
  @Test func describesEveryFormat() throws {
    let names = ["wav", "flac", "ogg", "opus", "mp3"].map { Splay.fixture("media/ladder-44k-stereo.\($0)") }
    let result = try Splay.run(["info", "--json"] + names)
    #expect(result.status == 0)
    let formats = result.jsonLines.compactMap { $0["format"] as? String }
    #expect(formats == ["WAV", "FLAC", "Ogg Vorbis", "Opus", "MP3"])
    let flac = result.jsonLines[1]
    #expect(flac["title"] as? String == "Ladder (stereo 44.1 kHz)")
    #expect(flac["artist"] as? String == "splay fixtures")
    #expect(flac["sampleRate"] as? Int == 44_100)
    #expect(flac["channels"] as? Int == 2)
  }

  @Test(arguments: [
    ("broken/empty.wav", "the file is empty"), ("broken/random-bytes.mp3", "cannot decode"),
    ("broken/text.wav", "cannot decode"), ("broken/directory.flac", "not a regular file"),
    ("media/nope.flac", "no such file"),
  ])
  func unreadableFilesExitThreeWithAOneLineMessage(path: String, cause: String) throws {
    let result = try Splay.run(["info", Splay.fixture(path)])
    #expect(result.status == 3)
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.first?.contains(Splay.fixture(path)) == true)
    #expect(lines.first?.contains(cause) == true)
  }
}
