import Foundation
import Testing

@testable import PlayerCore
@testable import PlayerDecoding

/// The FFmpeg decoder on M4A files made at test time from a known signal (``FFmpegFixtures``): exact lengths
/// (the encoder delay and padding are not played), content, sample-exact seeks, damaged and truncated files,
/// and what the standard factory hands out.
@Suite(.enabled(if: FFmpegFixtures.ffmpeg != nil, "needs the ffmpeg program (scripts/install-deps installs it)"))
struct FFmpegDecoderTests {
  let n = FFmpegFixtures.frames

  // MARK: Length and content

  @Test func alacDecodesToTheSourceExactly() throws {
    let decoder = try FFmpegDecoder(path: try FFmpegFixtures.alac())
    #expect(decoder.info.format == "MP4/ALAC")
    #expect(decoder.info.sampleRate == 44_100)
    #expect(decoder.info.channels == 2)
    #expect(decoder.info.frames == Int64(n))
    let decoded = try Self.readAll(decoder)
    #expect(decoded.count == n * 2)
    #expect(decoded == FFmpegFixtures.source, "ALAC is lossless")
  }

  @Test func tagsAndStreamPropertiesAreRead() throws {
    let info = try FFmpegDecoder(path: try FFmpegFixtures.alac()).info
    #expect(info.title == "Chirp")
    #expect(info.artist == "splay fixtures")
    #expect(info.album == "Test Media")
    #expect(info.trackNumber == "3/12")
    #expect(info.date == "2024")
    #expect(info.bitDepth == 16, "ALAC stores 16-bit samples here")
    let aac = try FFmpegDecoder(path: try FFmpegFixtures.exactAAC()).info
    #expect(aac.bitDepth == nil, "AAC is lossy")
    let bitrate = try #require(aac.bitrate)
    #expect(bitrate > 150_000 && bitrate < 250_000, "encoded at 192 kb/s: \(bitrate)")
  }

  /// The edit list of this file counts samples: the 1024 priming frames and the padding of the last packet are
  /// cut exactly, and what remains lines up with the source at lag 0.
  @Test func aacWithAnExactEditListDecodesToTheSourceLengthOnTheSourceGrid() throws {
    let decoder = try FFmpegDecoder(path: try FFmpegFixtures.exactAAC())
    #expect(decoder.info.format == "MP4/AAC")
    #expect(decoder.info.frames == Int64(n))
    let decoded = try Self.readAll(decoder)
    #expect(decoded.count == n * 2)
    let match = Self.alignment(decoded, FFmpegFixtures.source)
    print("AAC (exact edit list) vs source: correlation \(match.correlation) at lag \(match.lag)")
    #expect(match.lag == 0, "the decoded audio is shifted by \(match.lag) frames")
    #expect(match.correlation > 0.99)
  }

  /// `ffmpeg -c:a aac` writes its edit list in milliseconds: the length it declares is the source's rounded to
  /// one, within a frame at 44.1 kHz, and the decoder returns exactly what it declares.
  @Test func aacWithAMillisecondEditListIsWithinAFrameOfTheSource() throws {
    let decoder = try FFmpegDecoder(path: try FFmpegFixtures.defaultAAC())
    print("AAC (default ffmpeg edit list): \(decoder.info.frames) frames declared, \(n) encoded")
    #expect(abs(decoder.info.frames - Int64(n)) <= 1)
    let decoded = try Self.readAll(decoder)
    #expect(Int64(decoded.count / 2) == decoder.info.frames)
    let match = Self.alignment(decoded, FFmpegFixtures.source)
    #expect(match.lag == 0)
    #expect(match.correlation > 0.99)
  }

  // MARK: Seeking

  static let seekTargets: [Int] = [
    0, 1, 1000, 1023, 1024, 1025, 2112, 4095, 4096, 4097, 44_100, 66_000, 100_000, FFmpegFixtures.frames - 100,
  ]

  /// ALAC, and AAC without noise substitution: after a seek, the frames are those of a straight decode at that
  /// offset, bit for bit, whatever the order of the seeks.
  @Test(arguments: ["alac", "exact AAC"])
  func aSeekReturnsTheFramesOfAStraightDecode(fixture: String) throws {
    let path = fixture == "alac" ? try FFmpegFixtures.alac() : try FFmpegFixtures.exactAAC()
    let straight = try Self.readAll(try FFmpegDecoder(path: path))
    let decoder = try FFmpegDecoder(path: path)
    for target in Self.seekTargets + Self.seekTargets.reversed() {
      #expect(try decoder.seek(toFrame: Int64(target)) == Int64(target))
      let read = try Self.read(decoder, frames: 4096)
      let expected = Array(straight[(target * 2)..<min(straight.count, (target + 4096) * 2)])
      #expect(read == expected, "after a seek to \(target)")
    }
  }

  /// With noise substitution (FFmpeg's default), bands of the AAC stream are noise the decoder makes up, from a
  /// generator whose state depends on what was decoded before: a seek cannot give the same bits, but the same
  /// frames, on the same grid (lag 0), up to that noise.
  @Test func aSeekInAACWithNoiseSubstitutionStaysOnTheFrameGrid() throws {
    let path = try FFmpegFixtures.defaultAAC()
    let straight = try Self.readAll(try FFmpegDecoder(path: path))
    let decoder = try FFmpegDecoder(path: path)
    var worst: Float = 0
    var worstRelative = 0.0
    for target in Self.seekTargets {
      try decoder.seek(toFrame: Int64(target))
      let read = try Self.read(decoder, frames: 4096)
      let expected = Array(straight[(target * 2)..<min(straight.count, (target + 4096) * 2)])
      #expect(read.count == expected.count)
      let largest = zip(read, expected).map { abs($0 - $1) }.max() ?? 0
      let noise = zip(read, expected).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
      let signal = expected.reduce(0.0) { $0 + Double($1) * Double($1) }
      let relative = (noise / max(signal, 1e-12)).squareRoot()
      print("AAC with noise substitution, seek to \(target): largest difference \(largest), relative RMS \(relative)")
      worst = max(worst, largest)
      worstRelative = max(worstRelative, relative)
      if read.count >= 4096 {
        #expect(Self.alignment(read, expected, margin: 16).lag == 0, "after a seek to \(target)")
      }
    }
    #expect(worst < 0.1)
    #expect(worstRelative < 0.05)
  }

  @Test func aSeekToTheEndEndsAndAnyFrameIsClamped() throws {
    let decoder = try FFmpegDecoder(path: try FFmpegFixtures.alac())
    #expect(try decoder.seek(toFrame: Int64(n)) == Int64(n))
    #expect(try Self.read(decoder, frames: 100).isEmpty)
    #expect(try decoder.seek(toFrame: Int64(n) + 5000) == Int64(n))
    #expect(try decoder.seek(toFrame: -10) == 0)
    #expect(try Self.read(decoder, frames: 10) == Array(FFmpegFixtures.source.prefix(20)))
  }

  // MARK: Damaged files

  /// With its index (`moov`) first, half an M4A holds half the packets: they play, the track ends where they
  /// end, without an error, and that is the length it declares (the index says which packets are missing).
  @Test(arguments: ["alac", "exact AAC"])
  func aTruncatedM4APlaysWhatIsThereAndEnds(fixture: String) throws {
    let options =
      fixture == "alac"
      ? ["-c:a", "alac", "-movflags", "+faststart"]
      : ["-c:a", "aac", "-b:a", "192k", "-aac_pns", "0", "-movie_timescale", "44100", "-movflags", "+faststart"]
    let whole = try FFmpegFixtures.encode("faststart-\(fixture == "alac" ? "alac" : "aac").m4a", options)
    let half = try FFmpegFixtures.firstHalf(of: whole, as: "half-\(fixture == "alac" ? "alac" : "aac").m4a")
    let decoder = try FFmpegDecoder(path: half)
    let decoded = try Self.readAll(decoder)
    print("\(fixture), half the file: \(decoded.count / 2) of \(n) frames decoded, \(decoder.info.frames) declared")
    #expect(decoded.count / 2 > n / 4 && decoded.count / 2 < n)
    #expect(decoder.info.frames == Int64(decoded.count / 2))
    #expect(try Self.read(decoder, frames: 100).isEmpty, "the end stays the end")
    if fixture == "alac" {
      #expect(decoded == Array(FFmpegFixtures.source.prefix(decoded.count)), "what was there is the source")
    }
  }

  /// An M4A whose index comes last (ffmpeg's default) has none when cut in half: nothing says what it holds.
  @Test func aTruncatedM4AWithoutItsIndexIsRefused() throws {
    let half = try FFmpegFixtures.firstHalf(of: try FFmpegFixtures.alac(), as: "half-no-index.m4a")
    #expect {
      try FFmpegDecoder(path: half)
    } throws: { error in
      guard case .unsupportedFormat(let path, _) = error as? PlayerError else { return false }
      return path == half
    }
  }

  /// Bytes overwritten in the middle of the audio data: the packets they hit are skipped (their frames are
  /// silent), the track keeps its length and every frame away from the damage is the source's.
  @Test func aDamagedPacketIsSkippedAndTheRestPlays() throws {
    let whole = try FFmpegFixtures.encode("faststart-alac.m4a", ["-c:a", "alac", "-movflags", "+faststart"])
    var data = try Data(contentsOf: URL(fileURLWithPath: whole))
    let middle = data.count / 2
    var generator = SplitMix64(seed: 20_261_126)
    for i in middle..<(middle + 3000) { data[i] = UInt8.random(in: 0...255, using: &generator) }
    let damaged = FFmpegFixtures.folder + "/damaged.m4a"
    try data.write(to: URL(fileURLWithPath: damaged))
    let decoded = try Self.readAll(try FFmpegDecoder(path: damaged))
    #expect(decoded.count == n * 2, "the damage costs no length")
    let differing = (0..<n).filter { decoded[2 * $0] != FFmpegFixtures.source[2 * $0] }
    print("damaged ALAC: \(differing.count) of \(n) frames differ from the source")
    #expect(differing.count <= 3 * 4096, "at most the packets the 3000 bytes touch")
    #expect(!differing.isEmpty)
  }

  @Test func garbageIsRefusedAtOpen() throws {
    let path = FFmpegFixtures.folder + "/random.m4a"
    var generator = SplitMix64(seed: 20_261_126)
    let bytes = (0..<16_384).map { _ in UInt8.random(in: 0...255, using: &generator) }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    for file in [path, Fixtures.broken("random-bytes.flac"), Fixtures.broken("text.wav")] {
      #expect {
        try FFmpegDecoder(path: file)
      } throws: { error in
        guard case .unsupportedFormat(let reported, _) = error as? PlayerError else { return false }
        return reported == file
      }
      #expect(throws: PlayerError.unsupportedFormat(path: file, detail: "not an audio file (format not recognised)")) {
        try StandardDecoderFactory().open(file)
      }
    }
  }

  /// An MP4 whose sample entry says MPEG-H 3D Audio (`mhm1`), which FFmpeg demuxes and has no decoder for.
  @Test func aCodecWithoutDecoderIsNamed() throws {
    var data = try Data(contentsOf: URL(fileURLWithPath: try FFmpegFixtures.alac()))
    let entry = try #require(data.range(of: Data("stsd".utf8)))
    let alac = try #require(data.range(of: Data("alac".utf8), in: entry.upperBound..<data.count))
    data.replaceSubrange(alac, with: Data("mhm1".utf8))
    let path = FFmpegFixtures.folder + "/mpegh.m4a"
    try data.write(to: URL(fileURLWithPath: path))
    let expected = PlayerError.unsupportedFormat(path: path, detail: "unsupported codec mpegh_3d_audio")
    #expect(throws: expected) { try FFmpegDecoder(path: path) }
    #expect(throws: expected) { try StandardDecoderFactory().open(path) }
    #expect(expected.message == "\(path): cannot decode: unsupported codec mpegh_3d_audio")
  }

  @Test func aFileWithoutAudioIsRefusedAsSuch() throws {
    let path = FFmpegFixtures.folder + "/video.mp4"
    try FFmpegFixtures.run(["-f", "lavfi", "-i", "color=c=black:s=32x32:d=0.2", "-c:v", "mpeg4", path])
    let expected = PlayerError.unsupportedFormat(path: path, detail: "no audio stream")
    #expect(throws: expected) { try FFmpegDecoder(path: path) }
    #expect(throws: expected) { try StandardDecoderFactory().open(path) }
  }

  @Test func pathsThatAreNotReadableFilesGetTheFileErrors() throws {
    #expect(throws: PlayerError.fileNotFound(path: "/nonexistent/song.m4a")) {
      try FFmpegDecoder(path: "/nonexistent/song.m4a")
    }
    #expect(throws: PlayerError.notAFile(path: FFmpegFixtures.folder)) {
      try FFmpegDecoder(path: FFmpegFixtures.folder)
    }
  }

  // MARK: The standard factory

  @Test func theStandardFactoryOpensAACWithFAAD2ALACWithFFmpegAndTheRestWithLibsndfile() throws {
    let factory = StandardDecoderFactory()
    #expect(try factory.open(try FFmpegFixtures.alac()) is FFmpegDecoder)
    #expect(try factory.open(try FFmpegFixtures.exactAAC()) is AACDecoder)
    #expect(try factory.open(try FFmpegFixtures.defaultAAC()) is AACDecoder)
    #expect(try factory.open(Fixtures.stereoFLAC) is SndfileDecoder)
    #expect(try factory.open(Fixtures.media("ladder-44k-stereo.mp3")) is SndfileDecoder)
    #expect(try factory.open(Fixtures.broken("flac-named.ogg")) is SndfileDecoder, "by content, not by name")
  }

  /// A truncated FLAC file stays libsndfile's: it knows the format and says the file is truncated.
  @Test func aTruncatedFlacStaysWithLibsndfileWhichSaysWhatIsWrong() throws {
    let decoder = try StandardDecoderFactory().open(Fixtures.broken("truncated.flac"))
    #expect(decoder is SndfileDecoder)
    #expect(decoder.info.damage?.contains("truncated") == true)
  }

  @Test func wmaPlaysThroughTheStandardFactory() throws {
    let path = try FFmpegFixtures.encode("song.wma", ["-c:a", "wmav2", "-b:a", "128k"])
    let decoder = try StandardDecoderFactory().open(path)
    #expect(decoder.info.format == "ASF/WMA")
    #expect(decoder.info.title == "Chirp")
    let decoded = try Self.readAll(decoder)
    print("WMA: \(decoder.info.frames) frames declared, \(decoded.count / 2) decoded, \(n) encoded")
    #expect(abs(decoded.count / 2 - n) < 4096)
  }

  @Test func formatNamesSayContainerAndCodec() {
    #expect(FFmpegDecoder.formatName(container: "mov,mp4,m4a,3gp,3g2,mj2", codec: "aac") == "MP4/AAC")
    #expect(FFmpegDecoder.formatName(container: "mov,mp4,m4a,3gp,3g2,mj2", codec: "alac") == "MP4/ALAC")
    #expect(FFmpegDecoder.formatName(container: "matroska,webm", codec: "opus") == "Matroska/Opus")
    #expect(FFmpegDecoder.formatName(container: "asf", codec: "wmav2") == "ASF/WMA")
    #expect(FFmpegDecoder.formatName(container: "flac", codec: "flac") == "FLAC")
    #expect(FFmpegDecoder.formatName(container: "ac3", codec: "ac3") == "AC-3")
    #expect(FFmpegDecoder.formatName(container: "aac", codec: "aac") == "ADTS/AAC")
  }

  /// The error of the decoder that got further; "not an audio file" when neither recognised anything.
  @Test func theFactoryReportsTheErrorThatSaysMost() {
    func failure(_ stage: DecoderOpenFailure.Stage, _ detail: String) -> DecoderOpenFailure {
      DecoderOpenFailure(stage: stage, error: .unsupportedFormat(path: "x", detail: detail))
    }
    func chosen(_ first: DecoderOpenFailure, _ second: DecoderOpenFailure) -> PlayerError {
      StandardDecoderFactory.choose(first, second, path: "x")
    }
    let sndfile = failure(.unrecognised, "Format not recognised.")
    #expect(
      chosen(sndfile, failure(.unrecognised, "ffmpeg")).message
        == "x: cannot decode: not an audio file (format not recognised)")
    #expect(
      chosen(sndfile, failure(.refused, "unsupported codec wmav2")).message
        == "x: cannot decode: unsupported codec wmav2")
    #expect(
      chosen(sndfile, failure(.malformed, "FFmpeg decodes no audio"))
        == failure(.malformed, "FFmpeg decodes no audio").error)
    let malformed = failure(.malformed, "Channel count is zero.")
    #expect(chosen(malformed, failure(.unrecognised, "ffmpeg")) == malformed.error)
    #expect(chosen(malformed, failure(.malformed, "ffmpeg")) == malformed.error)
    #expect(chosen(malformed, failure(.refused, "no audio stream")).message == "x: cannot decode: no audio stream")
  }

  // MARK: Helpers

  /// Reads up to `frames` frames from where the decoder is.
  static func read(_ decoder: any AudioDecoder, frames: Int) throws -> [Float] {
    let channels = decoder.info.channels
    var samples = [Float](repeating: 0, count: frames * channels)
    var done = 0
    try samples.withUnsafeMutableBufferPointer { buffer in
      while done < frames {
        let rest = UnsafeMutableBufferPointer(rebasing: buffer[(done * channels)...])
        let count = try decoder.read(into: rest, frames: frames - done)
        if count == 0 { break }
        done += count
      }
    }
    return Array(samples.prefix(done * channels))
  }

  /// Reads to the end.
  static func readAll(_ decoder: any AudioDecoder) throws -> [Float] {
    var all: [Float] = []
    while case let chunk = try read(decoder, frames: 8192), !chunk.isEmpty { all += chunk }
    return all
  }

  /// The lag (in frames, -3...3) at which `decoded` best matches `reference` (least squared difference, left
  /// channel, `margin` frames away from both ends), and their correlation at lag 0.
  static func alignment(_ decoded: [Float], _ reference: [Float], margin: Int = 2048) -> (
    lag: Int, correlation: Double
  ) {
    let frames = min(decoded.count, reference.count) / 2
    let range = margin..<(frames - margin)
    func residual(_ lag: Int) -> Double {
      range.reduce(0.0) { sum, i in
        let d = Double(decoded[2 * (i + lag)]) - Double(reference[2 * i])
        return sum + d * d
      }
    }
    let lag = (-3...3).min { residual($0) < residual($1) }!
    var dot = 0.0
    var a = 0.0
    var b = 0.0
    for i in 0..<(frames * 2) {
      dot += Double(decoded[i]) * Double(reference[i])
      a += Double(decoded[i]) * Double(decoded[i])
      b += Double(reference[i]) * Double(reference[i])
    }
    return (lag, dot / (a * b).squareRoot())
  }
}
