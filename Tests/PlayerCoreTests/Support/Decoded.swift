import PlayerCore
import PlayerDecoding

/// A fixture decoded in full by the decoder the player would use, left channel only (the ladder is the same on
/// both channels).
func decodedLeft(_ path: String) throws -> (samples: [Float], info: TrackInfo) {
  let decoder = try StandardDecoderFactory().open(path)
  let info = decoder.info
  var left: [Float] = []
  left.reserveCapacity(Int(info.frames))
  let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * info.channels)
  defer { buffer.deallocate() }
  while true {
    let frames = try decoder.read(into: buffer, frames: 4096)
    if frames == 0 { break }
    for f in 0..<frames { left.append(buffer[f * info.channels]) }
  }
  return (left, info)
}
