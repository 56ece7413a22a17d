import Foundation

/// Short WAV tracks that each hold one step of the fixtures' tone ladder (400 + 100·k Hz), so that a
/// recording of a queue tells which track played when: tracks of a whole number of quarter seconds keep
/// every ladder step on the quarter-second grid that ``SignalAnalysis/ladderSteps(_:from:rate:count:)`` reads.
enum ToneTracks {
  static let rate = 44_100
  /// Quarter seconds per track.
  static let quarters = 2

  /// Writes a 16-bit stereo WAV of ladder step `step`, `quarters` quarter seconds long, at `path` (folders
  /// made as needed).
  static func write(step: Int, to path: String, quarters: Int = quarters) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let frames = rate / 4 * quarters
    let frequency = Double(400 + 100 * step)
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
      let sample = Int16(0.5 * 32767 * sin(2 * Double.pi * frequency * Double(frame) / Double(rate)))
      append(sample)
      append(sample)
    }
    try data.write(to: URL(fileURLWithPath: path))
  }
}
