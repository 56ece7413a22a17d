import Futures
import PlayerCore
import Synchronization

/// A decoder of synthetic media: frame `n` of every channel holds `Float(n % 65536) / 65536`, so a test can
/// tell from any sample which frame it came from. Paths that start with `missing` fail to open.
package final class FakeDecoder: AudioDecoder {
  package let info: TrackInfo
  private let cursor = Lock<Int64>(0)

  package init(path: String, seconds: Double = 3, sampleRate: Int = 44_100, channels: Int = 2) {
    info = TrackInfo(
      path: path, format: "Fake", sampleRate: sampleRate, channels: channels,
      frames: Int64(seconds * Double(sampleRate)), title: "Title of \(path)")
  }

  package func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    cursor.withLock { position in
      let count = Int(min(Int64(frames), info.frames - position))
      for f in 0..<count {
        for c in 0..<info.channels { buffer[f * info.channels + c] = Float((position + Int64(f)) % 65_536) / 65_536 }
      }
      position += Int64(count)
      return count
    }
  }

  /// The frame the next read starts at: with no seek, the frames read so far.
  package var framesRead: Int64 { cursor.withLock { $0 } }

  package func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    cursor.withLock { position in
      position = min(max(frame, 0), info.frames)
      return position
    }
  }
}

/// Opens ``FakeDecoder``s: `NAME.flac` lasts 3 s, `long*` 30 s, `missing*` is not found.
package struct FakeDecoderFactory: AudioDecoderFactory {
  /// A factory of fake decoders.
  package init() {}

  package func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
    if path.hasPrefix("missing") { throw .fileNotFound(path: path) }
    return FakeDecoder(path: path, seconds: path.hasPrefix("long") ? 30 : 3)
  }
}
