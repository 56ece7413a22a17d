import PlayerCore
import Synchronization

/// A decoder of silence with a fixed length, so the controller benchmark measures the controller, not
/// libsndfile or the disk. `SimulatedOutput` never reads from it; `read` still honours the protocol.
public final class SyntheticDecoder: AudioDecoder {
  /// A 44.1 kHz stereo track of `info.frames` frames, named after the path it was opened as.
  public let info: TrackInfo
  private let position = Mutex<Int64>(0)

  /// Creates a silent track `seconds` long.
  public init(path: String, seconds: Int = 30) {
    info = TrackInfo(path: path, format: "synthetic", sampleRate: 44_100, channels: 2, frames: Int64(seconds) * 44_100)
  }

  /// Fills up to `frames` frames with silence; 0 at the end.
  public func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    let count = position.withLock { position in
      let count = Int(min(Int64(frames), info.frames - position))
      position += Int64(count)
      return count
    }
    buffer.extracting(0..<(count * info.channels)).update(repeating: 0)
    return count
  }

  /// Moves to `frame`, clamped to the track.
  @discardableResult
  public func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    let target = min(max(frame, 0), info.frames)
    position.withLock { $0 = target }
    return target
  }
}
