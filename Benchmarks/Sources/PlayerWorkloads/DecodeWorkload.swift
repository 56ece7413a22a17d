import PlayerCore
import PlayerDecoding

/// Issue 4's decoding row: the whole of a file decoded to interleaved float by splay's own decoder.
public enum DecodeWorkload {
  /// Frames read per call: the chunk PulseOutput decodes with (about 93 ms at 44.1 kHz).
  public static let framesPerRead = 4_096

  /// Opens `path` with ``SndfileDecoder`` and reads it to the end into one reused buffer.
  ///
  /// - Returns: the frames decoded and the track's information, so the caller can check that the whole file
  ///   was decoded and turn the time into a multiple of real time.
  public static func decodeWhole(path: String) throws(PlayerError) -> (frames: Int64, info: TrackInfo) {
    let decoder = try SndfileDecoder(path: path)
    let channels = decoder.info.channels
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: framesPerRead * channels)
    defer { buffer.deallocate() }
    var frames: Int64 = 0
    while true {
      let read = try decoder.read(into: buffer, frames: framesPerRead)
      if read == 0 { break }
      frames += Int64(read)
    }
    return (frames, decoder.info)
  }
}
