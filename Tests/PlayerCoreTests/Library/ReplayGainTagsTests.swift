import AudioTestSupport
import Foundation
import Glibc
import PlayerCore
import Testing

@testable import PlayerLibrary

/// ReplayGain tags read from each place a file keeps them, built here byte by byte, and the gain a policy
/// takes from them, row by row.
@Suite struct ReplayGainTagsTests {
  private static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
  private static func be32(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8((value >> (8 * $0)) & 0xFF) } }

  /// Vorbis comments: vendor, count, `NAME=value` strings.
  private static func vorbisComments(_ comments: [String]) -> [UInt8] {
    var bytes = le32(6) + Array("vendor".utf8) + le32(comments.count)
    for comment in comments { bytes += le32(comment.utf8.count) + Array(comment.utf8) }
    return bytes
  }

  @Test func vorbisCommentsGiveGainsAndPeaks() {
    let block = Self.vorbisComments([
      "TITLE=x", "replaygain_track_gain=-6.20 dB", "REPLAYGAIN_ALBUM_GAIN=+1.5dB", "REPLAYGAIN_TRACK_PEAK=0.988547",
      "REPLAYGAIN_ALBUM_PEAK=1.2",
    ])
    let tags = ReplayGainTags.fromComments(ReplayGainTags.vorbisComments(block, from: 0))
    #expect(tags == ReplayGainTags(trackGain: -6.2, albumGain: 1.5, trackPeak: 0.988547, albumPeak: 1.2))
  }

  @Test func opusR128GainsAreQ78AgainstMinus23LUFS() {
    let packet = Array("OpusTags".utf8) + Self.vorbisComments(["R128_TRACK_GAIN=-1280", "R128_ALBUM_GAIN=256"])
    let tags = ReplayGainTags.fromComments(ReplayGainTags.oggComments(packet))
    #expect(tags.trackGain == Double(-5 + 5))
    #expect(tags.albumGain == Double(1 + 5))
  }

  /// Rows: text, and the gain it gives (nil: left out).
  @Test(arguments: [
    ("-6.20 dB", -6.2 as Double?), ("+1.5dB", 1.5), ("  3 dB ", 3), ("-6.2", -6.2), ("loud", nil), ("-99 dB", nil),
    ("nan dB", nil), ("", nil),
  ])
  func aGain(text: String, decibels: Double?) {
    #expect(ReplayGainTags.decibels(text) == decibels)
  }

  @Test func id3TXXXFramesInEachEncoding() {
    func frame(_ encoding: UInt8, _ description: [UInt8], _ value: [UInt8]) -> [UInt8] {
      let content = [encoding] + description + value
      return Array("TXXX".utf8) + Self.be32(content.count) + [0, 0] + content
    }
    let latin1 = frame(0, Array("REPLAYGAIN_TRACK_GAIN".utf8) + [0], Array("-3.00 dB".utf8))
    func utf16(_ text: String) -> [UInt8] { [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
    let wide = frame(1, utf16("REPLAYGAIN_ALBUM_GAIN") + [0, 0], utf16("-4.50 dB"))
    let utf8 = frame(3, Array("REPLAYGAIN_TRACK_PEAK".utf8) + [0], Array("0.5".utf8) + [0])
    let body = latin1 + wide + utf8
    let tag = Array("ID3".utf8) + [3, 0, 0] + [0, 0, UInt8(body.count >> 7), UInt8(body.count & 0x7F)] + body
    let tags = ReplayGainTags.fromComments(ReplayGainTags.id3Comments(tag))
    #expect(tags == ReplayGainTags(trackGain: -3, albumGain: -4.5, trackPeak: 0.5))
  }

  @Test func aDamagedTagGivesNothingAndNoCrash() {
    let truncated = Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, 40] + Array("TXXX".utf8) + Self.be32(1_000_000)
    #expect(ReplayGainTags.id3Comments(truncated).isEmpty)
    #expect(ReplayGainTags.vorbisComments(Self.le32(6) + Array("ven".utf8), from: 0).isEmpty)
    #expect(ReplayGainTags.oggComments(Array("OpusHead".utf8)).isEmpty)
  }

  /// Rows: mode, shuffled, and the gain and source a file tagged track −6 dB (peak 0.5) and album −8 dB takes
  /// with a 2 dB preamp; an untagged file takes −3 dB.
  @Test(arguments: [
    (ReplayGainMode.track, false, -4.0, AppliedGain.Source.track),
    (.album, false, -6.0, .album),
    (.auto, false, -6.0, .album),
    (.auto, true, -4.0, .track),
  ])
  func aPolicy(mode: ReplayGainMode, shuffled: Bool, decibels: Double, source: AppliedGain.Source) {
    let policy = ReplayGainPolicy(mode: mode, preamp: 2, untagged: -3)
    let tags = ReplayGainTags(trackGain: -6, albumGain: -8, trackPeak: 0.5)
    #expect(policy.gain(for: tags, shuffled: shuffled) == .init(decibels: decibels, source: source))
    #expect(policy.gain(for: ReplayGainTags(), shuffled: shuffled) == .init(decibels: -3, source: .none))
  }

  @Test func offAppliesNothingAndAPeakStopsAGainThatWouldClip() {
    #expect(ReplayGainPolicy().gain(for: ReplayGainTags(trackGain: -6), shuffled: false) == nil)
    // +6 dB on a peak of 0.9 would clip: lowered to 20·log10(1/0.9) ≈ 0.915 dB.
    let loud = ReplayGainPolicy(mode: .track).gain(for: ReplayGainTags(trackGain: 6, trackPeak: 0.9), shuffled: false)
    #expect(abs((loud?.decibels ?? 0) - 0.9151) < 0.001)
    let unchecked = ReplayGainPolicy(mode: .track, preventsClipping: false)
    #expect(unchecked.gain(for: ReplayGainTags(trackGain: 6, trackPeak: 0.9), shuffled: false)?.decibels == 6)
  }
}

/// The same tags as the tools people tag with write them: metaflac (FLAC), and FFmpeg (an MP3's ID3v2.4 `TXXX`
/// frames, an Opus file's comments).
@Suite(
  .enabled(
    if: [String](["/usr/bin/metaflac", "/usr/bin/ffmpeg"]).allSatisfy { access($0, X_OK) == 0 },
    "needs metaflac and ffmpeg"))
struct ReplayGainFileTests {
  /// The exit status of `arguments` run to its end (the one child-process helper of the tests).
  private static func run(_ arguments: [String]) -> Int32 {
    (try? ChildProcess.run(arguments).status) ?? -1
  }

  private static func scratch() -> String {
    let path = "/tmp/splay-replaygain-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    mkdir(path, 0o700)
    return path
  }

  @Test func metaflacTags() {
    let folder = Self.scratch()
    let path = folder + "/tagged.flac"
    #expect(Self.run(["/bin/cp", Fixtures.media("short-44k-stereo.flac"), path]) == 0)
    #expect(
      Self.run([
        "/usr/bin/metaflac", "--set-tag=REPLAYGAIN_TRACK_GAIN=-6.50 dB", "--set-tag=REPLAYGAIN_TRACK_PEAK=0.750000",
        "--set-tag=REPLAYGAIN_ALBUM_GAIN=-7.25 dB", path,
      ]) == 0)
    #expect(ReplayGainTags.read(atPath: path) == ReplayGainTags(trackGain: -6.5, albumGain: -7.25, trackPeak: 0.75))
    // Some taggers put an ID3 tag (here a title only) in front of a FLAC file: its own comments still count.
    let title = Array("TIT2".utf8) + [0, 0, 0, 6, 0, 0, 3] + Array("Title".utf8)
    let id3 = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, UInt8(title.count)] + title
    let flac = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
    #expect(FileManager.default.createFile(atPath: path, contents: Data(id3 + flac)))
    #expect(ReplayGainTags.read(atPath: path) == ReplayGainTags(trackGain: -6.5, albumGain: -7.25, trackPeak: 0.75))
    _ = Self.run(["/bin/rm", "-rf", folder])
  }

  /// Rows: the file made, and the tags FFmpeg writes into it.
  @Test(arguments: [
    (
      "tagged.mp3", ["-metadata", "REPLAYGAIN_TRACK_GAIN=-3.10 dB", "-metadata", "REPLAYGAIN_ALBUM_PEAK=0.9"],
      ReplayGainTags(trackGain: -3.1, albumPeak: 0.9)
    ),
    (
      "tagged.opus", ["-metadata", "R128_TRACK_GAIN=-512", "-metadata", "R128_ALBUM_GAIN=0"],
      ReplayGainTags(trackGain: 3, albumGain: 5)
    ),
  ])
  func ffmpegTags(name: String, metadata: [String], expected: ReplayGainTags) {
    let folder = Self.scratch()
    let path = folder + "/" + name
    let made = Self.run(
      ["/usr/bin/ffmpeg", "-v", "quiet", "-y", "-i", Fixtures.media("short-44k-stereo.flac")] + metadata + [path])
    #expect(made == 0)
    #expect(ReplayGainTags.read(atPath: path) == expected)
    _ = Self.run(["/bin/rm", "-rf", folder])
  }
}
