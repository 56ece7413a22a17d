import PlayerCore
import Synchronization

/// One track of a cue sheet: the frames `start..<end` of a decoder of the whole file, as a decoder of its own.
/// Frame 0 is the track's `INDEX 01`; reads stop at its end and seeks stay within it, so the output plays a
/// cue track exactly as it plays a file, and consecutive tracks of one file follow each other gaplessly.
public final class CueTrackDecoder: AudioDecoder {
  private let source: any AudioDecoder
  private let start: Int64
  /// The frame of the track the next read starts at.
  private let position = Mutex<Int64>(0)
  /// The file's information, narrowed to the track and named after it.
  public let info: TrackInfo

  /// Reads frames `start..<end` of `source` (to its end when `end` is nil) as the track `info` describes,
  /// whose `frames` are then set to the track's length. Fails when the track starts at or past the end of
  /// the file, or the file cannot seek there.
  public init(_ source: any AudioDecoder, start: Int64, end: Int64?, info: TrackInfo) throws(PlayerError) {
    let fileEnd = source.info.frames
    let end = min(end ?? fileEnd, fileEnd)
    guard start >= 0, start < end else {
      let rate = Double(max(source.info.sampleRate, 1))
      throw .unsupportedFormat(
        path: info.path,
        detail: "the cue sheet starts this track at \(Self.clock(Double(start) / rate)), "
          + "but its file ends at \(Self.clock(Double(fileEnd) / rate))")
    }
    self.source = source
    self.start = start
    var info = info
    info.frames = end - start
    self.info = info
    try seek(toFrame: 0)
  }

  /// The file's own: the track is read in the file's format.
  public var nativeSampleFormat: DecodedSampleFormat { source.nativeSampleFormat }

  /// Reads up to `frames` frames of the track; 0 at its end.
  public func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    try within(frames) { (count) throws(PlayerError) in try source.read(into: buffer, frames: count) }
  }

  /// Reads up to `frames` 16-bit frames of the track; 0 at its end.
  public func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws(PlayerError) -> Int {
    try within(frames) { (count) throws(PlayerError) in try source.read(into: buffer, frames: count) }
  }

  /// Moves to `frame` of the track (clamped to it) and returns where the next read starts.
  @discardableResult
  public func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    let target = min(max(frame, 0), info.frames)
    let landed = try source.seek(toFrame: start + target) - start
    position.withLock { $0 = landed }
    return landed
  }

  /// `seconds` as `m:ss.mmm`.
  static func clock(_ seconds: Double) -> String {
    let millis = Int((seconds * 1000).rounded())
    let (minutes, rest) = (millis / 60_000, millis % 60_000)
    let second = String(rest / 1000)
    let milli = String(rest % 1000)
    return "\(minutes):" + String(repeating: "0", count: 2 - second.count) + second + "."
      + String(repeating: "0", count: 3 - milli.count) + milli
  }

  /// Reads with `read`, asking for no more than the frames left in the track.
  private func within(_ frames: Int, _ read: (Int) throws(PlayerError) -> Int) throws(PlayerError) -> Int {
    let left = info.frames - position.withLock { $0 }
    guard left > 0, frames > 0 else { return 0 }
    let count = try read(Int(min(Int64(frames), left)))
    position.withLock { $0 += Int64(count) }
    return count
  }
}
