import AudioTestSupport
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
    let frequency = Double(400 + 100 * step)
    try StereoWAV.write(frames: rate / 4 * quarters, rate: rate, to: path) { frame in
      0.5 * sin(2 * Double.pi * frequency * Double(frame) / Double(rate))
    }
  }
}
