/// A decoder whose samples are scaled by a ReplayGain: floats always (``nativeSampleFormat`` is `.float32` even
/// at 0 dB), so that every track of a queue played with ReplayGain has one sample format and the next follows
/// in the same stream without a gap.
public final class GainedDecoder: AudioDecoder {
  private let source: any AudioDecoder
  private let factor: Float
  /// The source's information, with the gain applied.
  public let info: TrackInfo

  /// Reads `source` scaled by `gain`.
  public init(_ source: any AudioDecoder, gain: AppliedGain) {
    self.source = source
    factor = gain.factor
    var info = source.info
    info.gain = gain
    self.info = info
  }

  /// Floats: a gain is applied to them, and 16-bit samples would lose the bits below a cut.
  public var nativeSampleFormat: DecodedSampleFormat { .float32 }

  /// Reads the source's floats and scales them; a gain above 0 dB clips at full scale rather than leave the
  /// server to wrap or clip samples beyond it.
  public func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    let read = try source.read(into: buffer, frames: frames)
    let samples = UnsafeMutableBufferPointer(rebasing: buffer[0..<(read * info.channels)])
    if factor < 1 {
      for index in samples.indices { samples[index] *= factor }
    } else if factor > 1 {
      for index in samples.indices { samples[index] = min(max(samples[index] * factor, -1), 1) }
    }
    return read
  }

  /// Moves the source.
  @discardableResult
  public func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    try source.seek(toFrame: frame)
  }
}
