import Foundation

/// Tracks in which every fifth of a second sounds a frequency of its own, unique across the tracks, so that
/// 50 ms of the sink's monitor tell which track played and where in it: the oracle of the real-server model
/// test.
public enum PositionTones {
  /// Frames per second of the tracks.
  public static let rate = 44_100
  /// Seconds per step.
  public static let stepSeconds = 0.2
  /// Steps per track: 4 s tracks.
  public static let stepsPerTrack = 20
  /// Seconds per track.
  public static var trackSeconds: Double { stepSeconds * Double(stepsPerTrack) }
  /// Frames a window of ``identify(_:rate:tracks:)`` should hold: 50 ms resolve 20 Hz, a third of the spacing.
  public static let windowFrames = 2_205

  /// The frequency of `step` of `track`: 60 Hz apart from 300 Hz on, track after track.
  public static func frequency(track: Int, step: Int) -> Double {
    300 + 60 * Double(track * stepsPerTrack + step)
  }

  /// Writes track `track` as a 16-bit stereo WAV at `path`, the phase continuous across the steps (no click
  /// spreads one step's power over its neighbours).
  public static func write(track: Int, to path: String) throws {
    let framesPerStep = Int(stepSeconds * Double(rate))
    var phase = 0.0
    try StereoWAV.write(frames: Int(trackSeconds * Double(rate)), rate: rate, to: path) { frame in
      let step = min(frame / framesPerStep, stepsPerTrack - 1)
      phase += 2 * Double.pi * frequency(track: track, step: step) / Double(rate)
      return 0.5 * sin(phase)
    }
  }

  /// The track and step sounding in `window` (mono, `rate` frames a second) among `tracks` tracks; nil when
  /// it is silent.
  public static func identify(_ window: ArraySlice<Float>, rate: Int, tracks: Int) -> (track: Int, step: Int)? {
    guard window.contains(where: { abs($0) > 0.01 }) else { return nil }
    var best = (power: -1.0, track: 0, step: 0)
    for track in 0..<tracks {
      for step in 0..<stepsPerTrack {
        let power = SignalAnalysis.power(of: frequency(track: track, step: step), in: window, rate: rate)
        if power > best.power { best = (power, track, step) }
      }
    }
    return (best.track, best.step)
  }
}
