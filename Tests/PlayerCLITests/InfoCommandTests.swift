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

  /// The ReplayGain tags as read, beside the format and tags.
  @Test func showsTheReplayGainTags() throws {
    let scratch = try ScratchDirectory("splay-info")
    let path = scratch.path + "/tagged.flac"
    try FileManager.default.copyItem(atPath: Splay.fixture("media/short-44k-stereo.flac"), toPath: path)
    let tagged = try Splay.run(
      [
        "--set-tag=REPLAYGAIN_TRACK_GAIN=-6.2 dB", "--set-tag=REPLAYGAIN_TRACK_PEAK=0.988547",
        "--set-tag=REPLAYGAIN_ALBUM_GAIN=+1.5 dB", path,
      ], program: "/usr/bin/metaflac")
    #expect(tagged.status == 0, "\(tagged.stderr)")
    let result = try Splay.run(["info", path])
    #expect(result.status == 0)
    #expect(
      result.stdout.hasSuffix(", replaygain track -6.20 dB (peak 0.988547), album +1.50 dB\n"), "\(result.stdout)")
    let untagged = try Splay.run(["info", Splay.fixture("media/short-44k-stereo.flac")])
    #expect(!untagged.stdout.contains("replaygain"))
  }

  @Test(arguments: [
    ("broken/empty.wav", "the file is empty"), ("broken/random-bytes.mp3", "cannot decode"),
    ("broken/text.wav", "cannot decode"), ("broken/directory.flac", "no audio files in it"),
    ("media/nope.flac", "no such file"),
  ])
  func unreadableFilesExitThreeWithAOneLineMessage(path: String, cause: String) throws {
    let result = try Splay.run(["info", Splay.fixture(path)])
    #expect(result.status == 3)
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.first?.contains(Splay.fixture(path)) == true)
    #expect(lines.first?.contains(cause) == true)
  }

  /// `info` takes what `play` takes: a collection's folders recursively in natural order, a playlist's entries
  /// (relative to the playlist), and a line for each entry it leaves out.
  @Test func aFolderAndAPlaylistListTheFilesPlayWouldQueue() throws {
    let music = try ScratchDirectory("splay info 音楽")
    let fm = FileManager.default
    for album in ["Artist/Album 2", "Artist/Album 10", "Other"] {
      try fm.createDirectory(atPath: music.path + "/" + album, withIntermediateDirectories: true)
    }
    let second = try music.copy("media/ladder-44k-stereo.flac", as: "Artist/Album 10/01 Jóga.flac")
    let first = try music.copy("media/ladder-48k-mono.opus", as: "Artist/Album 2/01 戦場.opus")
    _ = try music.copy("broken/random-bytes.flac", as: "Artist/Album 2/02 not audio.flac")
    try Data("cover".utf8).write(to: URL(fileURLWithPath: music.path + "/Artist/Album 2/cover.jpg"))
    let third = try music.copy("media/short-44k-stereo.flac", as: "Other/short.flac")
    let playlist = music.path + "/Other/list.m3u"
    try Data("#EXTM3U\nshort.flac\n../Artist/Album 2/01 戦場.opus\ngone.flac\n".utf8).write(
      to: URL(fileURLWithPath: playlist))

    let folder = try Splay.run(["info", "--json", music.path + "/Artist"])
    #expect(folder.status == 0, "\(folder.stderr)")
    #expect(folder.jsonLines.compactMap { $0["path"] as? String } == [first, second], "Album 2 before Album 10")
    #expect(folder.stderr.isEmpty, "a file that is not audio is no entry of a folder: \(folder.stderr)")

    let listed = try Splay.run(["info", playlist])
    #expect(listed.status == 3, "an entry was left out")
    let lines = listed.stdout.split(separator: "\n")
    #expect(lines.count == 2 && lines[0].hasPrefix(third + ": FLAC") && lines[1].contains("01 戦場.opus: Opus"))
    #expect(
      listed.stderr.split(separator: "\n").first == "splay: \(playlist):4: \(music.path)/Other/gone.flac: no such file")
  }
}
