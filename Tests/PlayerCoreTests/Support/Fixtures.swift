import Foundation

/// Paths of the committed test media.
enum Fixtures {
  static let root: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("fixtures").path
  }()

  static func media(_ name: String) -> String { root + "/media/" + name }
  static func broken(_ name: String) -> String { root + "/broken/" + name }
  static func script(_ name: String) -> String { root + "/scripts/" + name }

  static let stereoFLAC = media("ladder-44k-stereo.flac")
  static let stereoWAV = media("ladder-44k-stereo.wav")
  static let monoFLAC = media("ladder-48k-mono.flac")
  static let shortFLAC = media("short-44k-stereo.flac")
  static let sweepFLAC = media("sweep-30s.flac")
}
