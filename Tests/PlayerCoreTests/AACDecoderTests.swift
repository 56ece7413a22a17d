import Foundation
import Testing

@testable import PlayerCore
@testable import PlayerDecoding

/// The FAAD2 decoder with splay's own MP4 reading, on the M4A files of ``FFmpegFixtures``: the same lengths,
/// grid and frames as the FFmpeg decoder gives, sample-exact seeks, truncated and damaged files, and the files it
/// leaves to FFmpeg.
@Suite(.enabled(if: FFmpegFixtures.ffmpeg != nil, "needs the ffmpeg program (scripts/install-deps installs it)"))
struct AACDecoderTests {
  let n = FFmpegFixtures.frames

  func open(_ path: String) throws -> AACDecoder {
    try #require(AACDecoder(path: path), "AACDecoder opens \(path)")
  }

  // MARK: Length, content, tags

  @Test func anExactEditListDecodesToTheSourceLengthOnTheSourceGridAsFFmpegDoes() throws {
    let path = try FFmpegFixtures.exactAAC()
    let decoder = try open(path)
    #expect(decoder.info.format == "MP4/AAC")
    #expect(decoder.info.sampleRate == 44_100)
    #expect(decoder.info.channels == 2)
    #expect(decoder.info.frames == Int64(n))
    let decoded = try FFmpegDecoderTests.readAll(decoder)
    #expect(decoded.count == n * 2)
    let match = FFmpegDecoderTests.alignment(decoded, FFmpegFixtures.source)
    #expect(match.lag == 0, "the decoded audio is shifted by \(match.lag) frames")
    #expect(match.correlation > 0.99)
    // Two AAC decoders agree to within rounding, frame for frame.
    let ffmpeg = try FFmpegDecoderTests.readAll(try FFmpegDecoder(path: path))
    let largest = zip(decoded, ffmpeg).map { abs($0 - $1) }.max() ?? 1
    print("FAAD2 vs FFmpeg on the same AAC file: largest difference \(largest)")
    #expect(largest < 1e-3)
  }

  /// `ffmpeg -c:a aac` writes its edit list in milliseconds (here 133,534.8 frames): FFmpeg plays one frame of
  /// padding past the encoded audio, this decoder stops where the packets' declared durations end.
  @Test func aMillisecondEditListIsWithinAFrameOfFFmpegsAndEndsWithTheAudio() throws {
    let path = try FFmpegFixtures.defaultAAC()
    let decoder = try open(path)
    let ffmpeg = try FFmpegDecoder(path: path).info.frames
    print("AAC (default ffmpeg edit list): FAAD2 \(decoder.info.frames) frames, FFmpeg \(ffmpeg), \(n) encoded")
    #expect(abs(decoder.info.frames - ffmpeg) <= 1)
    #expect(decoder.info.frames == Int64(n))
    let decoded = try FFmpegDecoderTests.readAll(decoder)
    #expect(Int64(decoded.count / 2) == decoder.info.frames)
    #expect(FFmpegDecoderTests.alignment(decoded, FFmpegFixtures.source).lag == 0)
  }

  @Test func tagsAndRatesAreRead() throws {
    let info = try open(try FFmpegFixtures.exactAAC()).info
    #expect(info.title == "Chirp")
    #expect(info.artist == "splay fixtures")
    #expect(info.album == "Test Media")
    #expect(info.trackNumber == "3/12")
    #expect(info.date == "2024")
    #expect(info.bitDepth == nil)
    let bitrate = try #require(info.bitrate)
    #expect(bitrate > 150_000 && bitrate < 250_000, "encoded at 192 kb/s: \(bitrate)")
  }

  /// iTunes' gapless tag (a freeform `----` item, which ffmpeg cannot write) stands in for an edit list.
  @Test func iTunesGaplessInformationStandsInForAnEditList() throws {
    let bare = try FFmpegFixtures.transcodeFile(
      try FFmpegFixtures.exactAAC(), as: "aac-bare.m4a",
      ["-c", "copy", "-use_editlist", "0", "-map_metadata", "-1", "-fflags", "+bitexact"])
    let padding = (n + 1024 + 1023) / 1024 * 1024 - 1024 - n
    let smpb = String(format: " 00000000 %08X %08X %016X", 1024, padding, n)
    let path = FFmpegFixtures.folder + "/aac-itunsmpb.m4a"
    try Self.appendingToMovie(Self.iTunesGaplessBox(smpb), in: bare).write(to: URL(fileURLWithPath: path))
    let decoder = try open(path)
    #expect(decoder.info.frames == Int64(n))
    let decoded = try FFmpegDecoderTests.readAll(decoder)
    #expect(decoded.count == n * 2)
    #expect(FFmpegDecoderTests.alignment(decoded, FFmpegFixtures.source).lag == 0)
  }

  /// An `ilst` item `----` holding `com.apple.iTunes` `iTunSMPB` = `text`.
  static func iTunesGaplessBox(_ text: String) -> Data {
    func box(_ type: String, _ body: Data) -> Data {
      var data = Data()
      withUnsafeBytes(of: UInt32(body.count + 8).bigEndian) { data.append(contentsOf: $0) }
      data.append(contentsOf: Array(type.utf8))
      return data + body
    }
    let zero4 = Data(count: 4)
    return box(
      "----",
      box("mean", zero4 + Data("com.apple.iTunes".utf8)) + box("name", zero4 + Data("iTunSMPB".utf8))
        + box("data", Data([0, 0, 0, 1]) + zero4 + Data(text.utf8)))
  }

  /// The file at `path` with `item` added at the end of `moov/udta/meta/ilst`, whose boxes must each end where
  /// their parent ends, and `moov` the file (so that no sample moves).
  static func appendingToMovie(_ item: Data, in path: String) throws -> Data {
    var data = try Data(contentsOf: URL(fileURLWithPath: path))
    func size(at offset: Int) -> Int { data[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
    func find(_ type: String, from start: Int, to end: Int) -> Int? {
      var offset = start
      while offset + 8 <= end {
        if String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self) == type { return offset }
        offset += size(at: offset)
      }
      return nil
    }
    var start = 0
    let end = data.count
    var grown: [Int] = []
    for (type, header) in [("moov", 8), ("udta", 8), ("meta", 12), ("ilst", 8)] {
      guard let offset = find(type, from: start, to: end), offset + size(at: offset) == end else {
        throw FFmpegFixtures.FixtureError(message: "\(type) is not the last box in \(path)")
      }
      grown.append(offset)
      start = offset + header
    }
    for offset in grown {
      let bigger = UInt32(size(at: offset) + item.count).bigEndian
      withUnsafeBytes(of: bigger) { data.replaceSubrange(offset..<(offset + 4), with: $0) }
    }
    return data + item
  }

  // MARK: Seeking

  /// Without noise substitution a seek gives the frames of a straight decode bit for bit, in any order.
  @Test func aSeekReturnsTheFramesOfAStraightDecode() throws {
    let path = try FFmpegFixtures.exactAAC()
    let straight = try FFmpegDecoderTests.readAll(try open(path))
    let decoder = try open(path)
    for target in FFmpegDecoderTests.seekTargets + FFmpegDecoderTests.seekTargets.reversed() {
      #expect(try decoder.seek(toFrame: Int64(target)) == Int64(target))
      let read = try FFmpegDecoderTests.read(decoder, frames: 3000)
      let expected = Array(straight[(target * 2)..<min(straight.count, (target + 3000) * 2)])
      #expect(read == expected, "after a seek to frame \(target)")
    }
  }

  @Test func aSeekToTheEndEndsAndAnyFrameIsClamped() throws {
    let decoder = try open(try FFmpegFixtures.exactAAC())
    #expect(try decoder.seek(toFrame: Int64(n)) == Int64(n))
    #expect(try FFmpegDecoderTests.read(decoder, frames: 100).isEmpty)
    #expect(try decoder.seek(toFrame: Int64(n) + 5000) == Int64(n))
    #expect(try decoder.seek(toFrame: -10) == 0)
    #expect(try FFmpegDecoderTests.read(decoder, frames: 10).count == 20)
  }

  // MARK: Damaged files

  @Test func aTruncatedFilePlaysItsPacketsAndSaysWhereTheAudioEnds() throws {
    let whole = try FFmpegFixtures.encode(
      "faststart-aac.m4a",
      ["-c:a", "aac", "-b:a", "192k", "-aac_pns", "0", "-movie_timescale", "44100", "-movflags", "+faststart"])
    let half = try FFmpegFixtures.firstHalf(of: whole, as: "half-aac-faad.m4a")
    let decoder = try open(half)
    let decoded = try FFmpegDecoderTests.readAll(decoder)
    #expect(decoded.count / 2 > n / 4 && decoded.count / 2 < n)
    #expect(decoder.info.frames == Int64(decoded.count / 2))
    #expect(decoder.info.damage?.contains("truncated") == true)
    #expect(try FFmpegDecoderTests.read(decoder, frames: 100).isEmpty, "the end stays the end")
    let straight = try FFmpegDecoderTests.readAll(try open(whole))
    #expect(decoded == Array(straight.prefix(decoded.count)), "what was there is what the whole file holds")
  }

  /// Bytes overwritten in the audio data: the packets they hit are silence or noise, the rest is the file's.
  /// Seeded, so a run repeats: with seed 39 FAAD2 decoded the whole second half wrongly, without an error, until
  /// a failed packet started a fresh decoder (69,022 of 133,534 frames differed).
  @Test func aDamagedPacketCostsNoLengthAndTheRestPlays() throws {
    let whole = try FFmpegFixtures.encode(
      "faststart-aac.m4a",
      ["-c:a", "aac", "-b:a", "192k", "-aac_pns", "0", "-movie_timescale", "44100", "-movflags", "+faststart"])
    let original = try Data(contentsOf: URL(fileURLWithPath: whole))
    let straight = try FFmpegDecoderTests.readAll(try open(whole))
    let damaged = FFmpegFixtures.folder + "/damaged-aac.m4a"
    var most = 0
    for seed in UInt64(0)..<48 {
      var data = original
      var generator = SplitMix64(seed: seed)
      let middle = data.count / 2
      for i in middle..<(middle + 2000) { data[i] = UInt8.random(in: 0...255, using: &generator) }
      try data.write(to: URL(fileURLWithPath: damaged))
      let decoded = try FFmpegDecoderTests.readAll(try open(damaged))
      #expect(decoded.count == straight.count, "seed \(seed): the damage costs no length")
      guard decoded.count == straight.count else { continue }
      let differing = (0..<n).filter { decoded[2 * $0] != straight[2 * $0] }.count
      #expect(differing <= 8 * 1024, "seed \(seed): at most the packets the 2000 bytes touch, and their neighbours")
      most = max(most, differing)
    }
    print("damaged AAC: at most \(most) of \(n) frames differ (48 seeds)")
  }

  /// Cut, flipped or shuffled index bytes never crash, hang or read out of bounds: the file opens or is left
  /// to FFmpeg, and what opens reads to its end.
  @Test func mangledIndexesAreRefusedOrPlayedNeverCrash() throws {
    let whole = try FFmpegFixtures.encode(
      "faststart-aac.m4a",
      ["-c:a", "aac", "-b:a", "192k", "-aac_pns", "0", "-movie_timescale", "44100", "-movflags", "+faststart"])
    let original = try Data(contentsOf: URL(fileURLWithPath: whole))
    // The index comes first in this file: its bytes are the ones worth mangling.
    let indexEnd = min(original.count, 4096)
    var generator = SplitMix64(seed: 20_261_125)
    var opened = 0
    for round in 0..<300 {
      var data = original
      for _ in 0..<(1 + round % 4) {
        let at = Int.random(in: 0..<indexEnd, using: &generator)
        data[at] = round % 3 == 0 ? 0xFF : UInt8.random(in: 0...255, using: &generator)
      }
      if round % 10 == 0 { data = data.prefix(Int.random(in: 0..<indexEnd, using: &generator)) }
      let path = FFmpegFixtures.folder + "/mangled.m4a"
      try data.write(to: URL(fileURLWithPath: path))
      guard let decoder = AACDecoder(path: path) else { continue }
      opened += 1
      let decoded = try FFmpegDecoderTests.readAll(decoder)
      #expect(Int64(decoded.count / decoder.info.channels) == decoder.info.frames)
    }
    print("mangled indexes: \(opened) of 300 opened")
  }

  // MARK: What is left to FFmpeg

  @Test func filesItDoesNotPlayAreLeftToFFmpeg() throws {
    #expect(AACDecoder(path: try FFmpegFixtures.alac()) == nil, "ALAC")
    #expect(AACDecoder(path: Fixtures.stereoFLAC) == nil, "not MP4")
    let noGapless = try FFmpegFixtures.transcodeFile(
      try FFmpegFixtures.exactAAC(), as: "aac-no-editlist.m4a", ["-c", "copy", "-use_editlist", "0"])
    #expect(AACDecoder(path: noGapless) == nil, "no gapless information: FFmpeg plays the priming frames")
    #expect(try StandardDecoderFactory().open(noGapless) is FFmpegDecoder)
    let surround = try FFmpegFixtures.encode("aac-51.m4a", ["-c:a", "aac", "-ac", "6"])
    #expect(AACDecoder(path: surround) == nil, "5.1")
    #expect(try StandardDecoderFactory().open(surround).info.channels == 6)
  }

  @Test func audioSpecificConfigsAreRead() {
    // AAC-LC, 44.1 kHz, stereo: 00010 0100 0010 0 0 0.
    let lc = AACFormat.audioSpecificConfig([0x12, 0x10])
    #expect(lc?.objectType == 2 && lc?.sampleRate == 44_100 && lc?.channels == 2 && lc?.shortFrames == false)
    // HE-AAC (object type 5), 24 kHz core, mono.
    #expect(AACFormat.audioSpecificConfig([0x2B, 0x08])?.objectType == 5)
    // An explicit 24-bit rate (index 15).
    let explicit = AACFormat.audioSpecificConfig([0x17, 0x80, 0x56, 0x22, 0x10])
    #expect(explicit?.sampleRate == 44_100 && explicit?.channels == 2)
    #expect(AACFormat.audioSpecificConfig([0x12]) == nil, "cut short")
    #expect(AACFormat.audioSpecificConfig([0x16, 0x90])?.sampleRate == nil, "a reserved rate index")
  }
}
