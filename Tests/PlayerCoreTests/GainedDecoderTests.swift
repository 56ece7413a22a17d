import Futures
import PlayerCore
import PlayerDecoding
import PlayerTestSupport
import Testing

/// ReplayGain in splay's own sample path: the decoder that scales a track's samples in their own format.
@Suite struct GainedDecoderTests {
  /// Reads `frames` frames of `decoder` as floats.
  private static func floats(_ decoder: any AudioDecoder, frames: Int) throws -> [Float] {
    var samples = [Float](repeating: 0, count: frames * decoder.info.channels)
    let read = try samples.withUnsafeMutableBufferPointer { try decoder.read(into: $0, frames: frames) }
    return Array(samples[0..<(read * decoder.info.channels)])
  }

  @Test func aCutScalesEverySampleAndSaysSo() throws {
    let gain = AppliedGain(decibels: -6, source: .album)
    let gained = GainedDecoder(FakeDecoder(path: "a.flac"), gain: gain)
    let plain = try Self.floats(FakeDecoder(path: "a.flac"), frames: 4_096)
    let scaled = try Self.floats(gained, frames: 4_096)
    #expect(scaled.count == plain.count)
    let factor = Float(0.501_187_2)  // 10^(-6/20)
    #expect(zip(scaled, plain).allSatisfy { abs($0 - $1 * factor) <= 1e-6 })
    #expect(gained.info.gain == gain)
    #expect(gained.info.path == "a.flac" && gained.info.frames == FakeDecoder(path: "a.flac").info.frames)
  }

  /// The source's format: a 16-bit file still goes out as 16-bit samples, scaled.
  @Test func theSamplesKeepTheSourcesFormat() throws {
    let floats = GainedDecoder(FakeDecoder(path: "a.flac"), gain: AppliedGain(decibels: -6, source: .track))
    #expect(floats.nativeSampleFormat == .float32)
    let shorts = GainedDecoder(ShortDecoder(), gain: AppliedGain(decibels: -6, source: .track))
    #expect(shorts.nativeSampleFormat == .int16)
  }

  /// A source of 16-bit samples: every value from -32768 to 32767, one per frame, mono.
  private final class ShortDecoder: AudioDecoder {
    let info = TrackInfo(path: "ramp.wav", format: "WAV", sampleRate: 44_100, channels: 1, frames: 65_536)
    private let cursor = Locked<Int>(0)
    var nativeSampleFormat: DecodedSampleFormat { .int16 }
    func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
      Issue.record("a 16-bit source read as floats")
      return 0
    }
    func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws(PlayerError) -> Int {
      cursor.withLock { next in
        let count = min(frames, 65_536 - next)
        for index in 0..<count { buffer[index] = Int16(truncatingIfNeeded: next + index - 32_768) }
        next += count
        return count
      }
    }
    func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
      cursor.withLock { $0 = Int(frame) }
      return frame
    }
  }

  /// Every 16-bit value scaled is the nearest 16-bit value to the exact product (half a step off at most), and
  /// a boost clips at full scale, for a cut, unity and a boost.
  @Test(arguments: [-6.0, -0.1, 0, 3.5])
  func sixteenBitSamplesAreScaledAndRounded(decibels: Double) throws {
    let gained = GainedDecoder(ShortDecoder(), gain: AppliedGain(decibels: decibels, source: .album))
    var samples = [Int16](repeating: 0, count: 65_536)
    // In reads of 1,001 frames: the vector loop's eights and the rest one by one.
    var read = 0
    while read < 65_536 {
      let count = try samples.withUnsafeMutableBufferPointer { buffer in
        try gained.read(into: UnsafeMutableBufferPointer(rebasing: buffer[read...]), frames: min(1_001, 65_536 - read))
      }
      if count == 0 { break }
      read += count
    }
    #expect(read == 65_536)
    let factor = (Double(AppliedGain(decibels: decibels, source: .album).factor) * 32_768).rounded() / 32_768
    var worst = 0.0
    for (index, sample) in samples.enumerated() {
      let exact = min(max(Double(index - 32_768) * factor, -32_768), 32_767)
      worst = max(worst, abs(Double(sample) - exact))
    }
    #expect(worst <= 0.5, "\(decibels) dB: \(worst) steps from the exact product")
  }

  @Test func zeroDecibelsLeavesTheSamplesAsTheyAre() throws {
    let gained = GainedDecoder(FakeDecoder(path: "a.flac"), gain: AppliedGain(decibels: 0, source: .none))
    #expect(try Self.floats(gained, frames: 1_000) == (try Self.floats(FakeDecoder(path: "a.flac"), frames: 1_000)))
  }

  /// A boost clips at full scale (an untagged file's gain, or one with clipping allowed, can push past it).
  @Test func aBoostClipsAtFullScale() throws {
    let gained = GainedDecoder(FakeDecoder(path: "a.flac"), gain: AppliedGain(decibels: 12, source: .track))
    // Frames from 60,000 on hold more than 0.9: four times that is past full scale.
    try gained.seek(toFrame: 60_000)
    let loud = try Self.floats(gained, frames: 100)
    #expect(loud.allSatisfy { $0 == 1 })
    try gained.seek(toFrame: 1_000)
    let quiet = try Self.floats(gained, frames: 1)
    #expect(abs(quiet[0] - Float(1_000) / 65_536 * 3.981_071_7) <= 1e-5)
  }

  @Test func aSeekMovesTheSource() throws {
    let source = FakeDecoder(path: "a.flac")
    let gained = GainedDecoder(source, gain: AppliedGain(decibels: -3, source: .track))
    #expect(try gained.seek(toFrame: 12_345) == 12_345)
    #expect(source.framesRead == 12_345)
  }
}
