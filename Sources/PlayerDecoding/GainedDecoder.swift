import CSampleGain
import PlayerCore

/// A decoder whose samples are scaled by a ReplayGain, in the source's own format: floats are scaled as floats;
/// 16-bit samples by a fixed-point factor and rounded back to 16 bits, as a server's software volume does, so
/// that a 16-bit file still goes out as half the bytes (sent as floats, ReplayGain cost 12 % more CPU while
/// playing; docs/performance.md has today's row). Tracks of one format still follow each other in one stream.
public final class GainedDecoder: AudioDecoder {
  private let source: any AudioDecoder
  private let factor: Float
  /// `factor` in 1/32768ths, for 16-bit samples.
  private let fixedFactor: Int64
  /// The source's information, with the gain applied.
  public let info: TrackInfo

  /// Reads `source` scaled by `gain`.
  public init(_ source: any AudioDecoder, gain: AppliedGain) {
    self.source = source
    factor = gain.factor
    fixedFactor = Int64((Double(gain.factor) * 32_768).rounded())
    var info = source.info
    info.gain = gain
    self.info = info
  }

  /// The source's: the gain is applied in either format.
  public var nativeSampleFormat: DecodedSampleFormat { source.nativeSampleFormat }

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

  /// Reads the source's 16-bit samples and scales them, rounding to the nearest and clipping at full scale.
  public func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws(PlayerError) -> Int {
    let read = try source.read(into: buffer, frames: frames)
    let samples = UnsafeMutableBufferPointer(rebasing: buffer[0..<(read * info.channels)])
    let factor = fixedFactor
    if factor < 32_768, let base = samples.baseAddress {
      // |sample · factor| < 2^30: no clipping, and the arithmetic shift rounds half up.
      splay_gain_cut_s16(base, samples.count, Int16(factor))
    } else if factor > 32_768 {
      for index in samples.indices { samples[index] = Int16(clamping: (Int64(samples[index]) * factor + 16_384) >> 15) }
    }
    return read
  }

  /// Moves the source.
  @discardableResult
  public func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    try source.seek(toFrame: frame)
  }

  /// The source's title changes: a gain does not move them.
  public func takeTitleChanges() -> [TitleChange] {
    source.takeTitleChanges()
  }

  /// The source's notices.
  public func takeNotices() -> [String] {
    source.takeNotices()
  }

  /// Abandons the source.
  public func abandon() {
    source.abandon()
  }
}
