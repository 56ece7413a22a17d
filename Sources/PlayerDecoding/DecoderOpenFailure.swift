import PlayerCore

/// Why a decoder could not open a file, in the terms ``StandardDecoderFactory`` chooses by: whether another
/// decoder is worth trying, and whose error to report when none can open it.
struct DecoderOpenFailure: Error {
  /// How far the decoder got.
  enum Stage {
    /// The path could not be read (missing, not permitted, not a regular file): no decoder can do better.
    case file
    /// The decoder does not know what the content is: another decoder may.
    case unrecognised
    /// The decoder knows the format but could not read this file as one: another decoder may read it still
    /// (libsndfile refuses a WAV holding AAC as a malformed WAV), but if none does, this error says most.
    case malformed
    /// The decoder knows the format and refused the file for a reason that holds for any decoder (truncated,
    /// empty, 40 channels, a codec it names and has no decoder for): no other decoder is tried.
    case refused
  }

  /// How far the decoder got.
  let stage: Stage
  /// The error to report.
  let error: PlayerError

  /// The failure for a path that `stat` or `open` refused with `code`.
  static func file(errno code: Int32, path: String) -> DecoderOpenFailure {
    let error = SndfileDecoder.fileError(errno: code, path: path)
    if case .unsupportedFormat = error { return DecoderOpenFailure(stage: .refused, error: error) }
    return DecoderOpenFailure(stage: .file, error: error)
  }
}
