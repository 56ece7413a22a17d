import PlayerCore
import PlayerTestSupport
import Testing

/// What every decoder gets from AudioDecoder's defaults: float samples, and 16-bit ones rounded from them.
@Suite struct AudioDecoderDefaultsTests {
  @Test func aFloatDecoderReadsSixteenBitSamplesRoundedAndClamped() throws {
    let decoder = FakeDecoder(path: "ramp.flac", seconds: 2)
    #expect(decoder.nativeSampleFormat == .float32)
    let frames = 65_536
    let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: frames * 2)
    defer { buffer.deallocate() }
    // Frame n holds n / 65536 on both channels: n / 2 in 16 bits, rounded half away from zero.
    #expect(try decoder.read(into: buffer, frames: frames) == frames)
    #expect(Array(buffer[0..<8]) == [0, 0, 1, 1, 1, 1, 2, 2])
    #expect(buffer[2 * 1001] == 501)
    // 65535 / 65536 rounds to 32768, one past the largest 16-bit sample: clamped.
    #expect(buffer[2 * 65_535] == 32_767)
  }
}
