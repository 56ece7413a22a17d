import Foundation
import PlayerCore
import PlayerDecoding
import Testing

/// The decoder's defences against files that lie about their length.
@Suite struct SndfileDecoderTests {
  static let media = try! FileManager.default.contentsOfDirectory(atPath: Fixtures.root + "/media").sorted()

  @Test(arguments: media)
  func everyGoodFixtureOpensAndDecodesToItsDeclaredLength(name: String) throws {
    let decoder = try SndfileDecoder(path: Fixtures.media(name))
    let info = decoder.info
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * info.channels)
    defer { buffer.deallocate() }
    var total: Int64 = 0
    while case let n = try decoder.read(into: buffer, frames: 4096), n > 0 { total += Int64(n) }
    // An MP3 without a gapless header declares a few thousand frames more than it decodes.
    #expect(abs(total - info.frames) < Int64(info.sampleRate), "\(total) of \(info.frames) frames")
  }

  /// A seek to the end (a paused seek past the end clamps there) lands there in every decoder the player
  /// opens files with, and nothing is left to read: it must not fail, nor start over at frame 0.
  @Test(arguments: media)
  func aSeekToTheEndLandsThereAndLeavesNothingToRead(name: String) throws {
    let decoder = try StandardDecoderFactory().open(Fixtures.media(name))
    let info = decoder.info
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * info.channels)
    defer { buffer.deallocate() }
    _ = try decoder.read(into: buffer, frames: 4096)
    for target in [info.frames, info.frames + 44_100] {
      #expect(try decoder.seek(toFrame: target) == info.frames, "\(name): seek to \(target)")
      #expect(try decoder.read(into: buffer, frames: 4096) == 0, "\(name): nothing after the end")
    }
    #expect(try decoder.seek(toFrame: 0) == 0, "\(name): and back to the start")
    #expect(try decoder.read(into: buffer, frames: 4096) > 0)
  }

  /// A seek from the middle of a track lands on the samples a straight decode has at the target, near the end
  /// too (libsndfile's own Vorbis seek is off there by up to a page and decodes without the previous block).
  @Test(arguments: media)
  func aSeekFromMidTrackReadsWhatAStraightDecodeReadsThere(name: String) throws {
    let path = Fixtures.media(name)
    let whole = try Self.decodeAll(StandardDecoderFactory().open(path))
    let decoder = try StandardDecoderFactory().open(path)
    let info = decoder.info
    let frames = Int64(whole.count / info.channels)
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2048 * info.channels)
    defer { buffer.deallocate() }
    for target in [1, frames / 2, frames - 9000, frames - 4000, frames - 1000, frames - 1, 0] {
      _ = try decoder.seek(toFrame: frames / 3)
      _ = try decoder.read(into: buffer, frames: 2048)
      #expect(try decoder.seek(toFrame: target) == target, "\(name): landed at the target")
      let count = try decoder.read(into: buffer, frames: 2048)
      let expected = min(2048, Int(frames - target))
      #expect(count == expected, "\(name) at \(target): \(count) frames, not \(expected)")
      let start = Int(target) * info.channels
      let worst = (0..<min(count, expected) * info.channels).map { abs(buffer[$0] - whole[start + $0]) }.max() ?? 0
      // An MP3 decoded after a seek can differ from a straight decode by float rounding (see lengthProblem).
      #expect(worst < 1e-6, "\(name) at \(target): samples differ by up to \(worst)")
    }
  }

  /// Every sample `decoder` gives from where it is to the end.
  private static func decodeAll(_ decoder: any AudioDecoder) throws -> [Float] {
    let channels = decoder.info.channels
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * channels)
    defer { buffer.deallocate() }
    var samples: [Float] = []
    while case let n = try decoder.read(into: buffer, frames: 4096), n > 0 {
      samples.append(contentsOf: buffer.prefix(n * channels))
    }
    return samples
  }

  /// 16-bit PCM reads as the file's own integers, the same samples the float path gives (× 32768, exactly);
  /// lossy and float sources stay float.
  @Test(arguments: media)
  func sixteenBitSourcesReadTheirOwnSamples(name: String) throws {
    let floats = try SndfileDecoder(path: Fixtures.media(name))
    let integers = try SndfileDecoder(path: Fixtures.media(name))
    let lossless = name.hasSuffix(".flac") || name.hasSuffix(".wav")
    #expect(floats.nativeSampleFormat == (lossless ? .int16 : .float32), "\(name)")
    let channels = floats.info.channels
    try withBuffers(Float.self, Int16.self, count: 4096 * channels) { a, b in
      try compare(name, floats, integers, lossless: lossless, a, b)
    }
  }

  /// Reads `floats` into `a` and `integers` into `b` to the end and checks that they hold the same samples.
  private func compare(
    _ name: String, _ floats: SndfileDecoder, _ integers: SndfileDecoder, lossless: Bool,
    _ a: UnsafeMutableBufferPointer<Float>, _ b: UnsafeMutableBufferPointer<Int16>
  ) throws {
    let channels = floats.info.channels
    guard lossless else {
      // A float source asked for integers gets its floats converted (by libsndfile, within one step).
      let n = try floats.read(into: a, frames: 4096)
      #expect(try integers.read(into: b, frames: 4096) == n)
      let far = (0..<(n * channels)).count { abs(Float(b[$0]) - a[$0] * 32768) > 1.5 }
      #expect(far == 0, "\(name): \(far) samples more than a step away")
      return
    }
    _ = try integers.seek(toFrame: 1000)
    _ = try floats.seek(toFrame: 1000)
    var compared = 0
    while case let n = try floats.read(into: a, frames: 4096), n > 0 {
      #expect(try integers.read(into: b, frames: 4096) == n)
      let differing = (0..<(n * channels)).count { Float(b[$0]) != a[$0] * 32768 }
      #expect(differing == 0, "\(name): \(differing) samples differ")
      compared += n
    }
    #expect(Int64(compared) == floats.info.frames - 1000)
    // The end of a 16-bit read is checked as the float one is.
    #expect(try integers.read(into: b, frames: 4096) == 0)
  }

  /// Whether `error` refuses the broken fixture `name` as truncated.
  private static func refusesAsTruncated(_ error: any Error, _ name: String) -> Bool {
    guard case .unsupportedFormat(let path, let detail) = error as? PlayerError else { return false }
    return path == Fixtures.broken(name) && detail.contains("truncated")
  }

  /// A truncated file plays as far as its audio goes: it declares the frames it holds, decodes exactly those,
  /// and says what is wrong.
  @Test(arguments: ["truncated.flac", "truncated.mp3"])
  func aTruncatedFileDeclaresAndDecodesWhatItHolds(name: String) throws {
    let decoder = try SndfileDecoder(path: Fixtures.broken(name))
    let info = decoder.info
    #expect(info.frames > 0 && info.frames < 3 * 44_100, "\(info.frames) frames")
    #expect(info.damage?.hasSuffix("of the 0:03.000 its header declares (truncated)") == true, "\(info.damage ?? "")")
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * info.channels)
    defer { buffer.deallocate() }
    var total: Int64 = 0
    while case let n = try decoder.read(into: buffer, frames: 4096), n > 0 { total += Int64(n) }
    #expect(total == info.frames)
  }

  /// An Ogg file cut short has no length at all: refused, there is no duration to play against.
  @Test func aTruncatedOggWithoutALengthIsRefused() {
    #expect {
      try SndfileDecoder(path: Fixtures.broken("truncated.ogg"))
    } throws: { error in
      guard case .unsupportedFormat(_, let detail) = error as? PlayerError else { return false }
      return detail.contains("length is unknown")
    }
  }

  @Test(arguments: ["truncated.flac", "truncated.mp3"])
  func aDeferredLengthCheckRefusesATruncatedFileSoThatTheEarlyStartLetsItGo(name: String) throws {
    let decoder = try SndfileDecoder(path: Fixtures.broken(name), deferringLengthCheck: true)
    #expect {
      try decoder.checkLength()
    } throws: { Self.refusesAsTruncated($0, name) }
  }

  /// The check seeks near the end of the file: made between two reads, it must leave the next read where it was.
  @Test(arguments: ["ladder-44k-stereo.flac", "ladder-44k-stereo.mp3", "ladder-48k-mono.ogg"])
  func aDeferredLengthCheckLeavesTheNextReadWhereItWas(name: String) throws {
    let checked = try SndfileDecoder(path: Fixtures.media(name), deferringLengthCheck: true)
    let straight = try SndfileDecoder(path: Fixtures.media(name))
    let channels = checked.info.channels
    // Past the first second: libsndfile's own Vorbis seek back to there is off (see SndfileDecoder.seekPreroll).
    try withBuffers(Float.self, Float.self, count: 66_000 * channels) { first, second in
      #expect(try checked.read(into: first, frames: 60_000) == 60_000)
      try checked.checkLength()
      let rest = UnsafeMutableBufferPointer(rebasing: first[(60_000 * channels)...])
      #expect(try checked.read(into: rest, frames: 6000) == 6000)
      #expect(try straight.read(into: second, frames: 66_000) == 66_000)
      // An MP3 decoded after a seek back can differ from a fresh decode by float rounding (see lengthProblem).
      let worst = zip(first, second).map { abs($0 - $1) }.max() ?? 0
      #expect(worst < 1e-6, "frames after the check differ by up to \(worst)")
    }
  }

  @Test func aFileTruncatedAfterOpeningFailsTheReadThatMeetsItsEnd() throws {
    let path = FileManager.default.temporaryDirectory.path + "/splay-shrinking-\(getpid()).flac"
    try FileManager.default.copyItem(atPath: Fixtures.sweepFLAC, toPath: path)
    defer { unlink(path) }
    let decoder = try SndfileDecoder(path: path)
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * 2)
    defer { buffer.deallocate() }
    #expect(try decoder.read(into: buffer, frames: 4096) == 4096)
    #expect(truncate(path, 100_000) == 0)
    var total: Int64 = 4096
    #expect {
      while true { total += Int64(try decoder.read(into: buffer, frames: 4096)) }
    } throws: { error in
      guard case .unsupportedFormat(_, let detail) = error as? PlayerError else { return false }
      return detail.contains("of 0:30.000 (the file is truncated or damaged)")
    }
    #expect(total < 44_100 * 10, "what was there was read first: \(total) frames")
  }

  /// Runs `body` with two buffers of `count` samples, freed when it returns.
  private func withBuffers<A, B, Result>(
    _: A.Type, _: B.Type, count: Int,
    _ body: (UnsafeMutableBufferPointer<A>, UnsafeMutableBufferPointer<B>) throws -> Result
  ) rethrows -> Result {
    try withUnsafeTemporaryAllocation(of: A.self, capacity: count) { a in
      try withUnsafeTemporaryAllocation(of: B.self, capacity: count) { b in try body(a, b) }
    }
  }
}
