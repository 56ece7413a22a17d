import Foundation

/// Writes 16-bit stereo WAV files for tests: the same sample on both channels.
public enum StereoWAV {
  /// Writes `frames` frames at `rate` to `path`, the sample of each frame given by `sample` (-1...1).
  public static func write(frames: Int, rate: Int, to path: String, sample: (Int) -> Double) throws {
    var data = Data()
    func append<T: FixedWidthInteger>(_ value: T) {
      withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
    data.append(contentsOf: Array("RIFF".utf8))
    append(UInt32(36 + frames * 4))
    data.append(contentsOf: Array("WAVEfmt ".utf8))
    append(UInt32(16))
    append(UInt16(1))
    append(UInt16(2))
    append(UInt32(rate))
    append(UInt32(rate * 4))
    append(UInt16(4))
    append(UInt16(16))
    data.append(contentsOf: Array("data".utf8))
    append(UInt32(frames * 4))
    for frame in 0..<frames {
      let value = Int16(32767 * sample(frame))
      append(value)
      append(value)
    }
    try data.write(to: URL(fileURLWithPath: path))
  }
}
