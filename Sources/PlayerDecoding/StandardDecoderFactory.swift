import PlayerCore

/// Opens files with libsndfile (``SndfileDecoder``); AAC-LC in MP4 with FAAD2 (``AACDecoder``); and with FFmpeg
/// (``FFmpegDecoder``) the rest that libsndfile cannot open: the decoder a player uses unless told otherwise.
///
/// libsndfile goes first: it opens a FLAC file in about half a millisecond and is always loaded, while FFmpeg
/// takes tens of milliseconds to load the first time. FFmpeg is not tried when libsndfile's answer holds for any
/// decoder: the file is missing, unreadable or not a regular file, empty, or truncated (FFmpeg would play a
/// truncated FLAC file up to where it stops, libsndfile refuses it with a message that says so).
///
/// When neither opens the file, the error says most about it: FFmpeg's when it identified the file and named
/// why it cannot play it (`song.wma: cannot decode: unsupported codec wmav2`, `no audio stream`), or got
/// further than libsndfile; `not an audio file (format not recognised)` when neither recognised anything;
/// otherwise libsndfile's (a malformed WAV header, a channel count of zero).
public struct StandardDecoderFactory: AudioDecoderFactory {
  /// How long connecting to a stream, and each read of it, may take.
  public var streamTimeout: Double

  /// Creates the factory.
  public init(streamTimeout: Double = 5) {
    self.streamTimeout = streamTimeout
  }

  /// Opens `path` with libsndfile, or failing that with FFmpeg; an http(s) URL with FFmpeg alone.
  public func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
    if StreamURL.isStream(path) { return try FFmpegDecoder(url: path, timeout: streamTimeout) }
    let first: DecoderOpenFailure
    do {
      return try SndfileDecoder(opening: path, deferringLengthCheck: false)
    } catch {
      first = error
    }
    guard first.stage == .unrecognised || first.stage == .malformed else { throw first.error }
    if let aac = AACDecoder(path: path) { return aac }
    let second: DecoderOpenFailure
    do {
      return try FFmpegDecoder(opening: path)
    } catch {
      second = error
    }
    throw Self.choose(first, second, path: path)
  }

  /// The error to report when libsndfile failed with `first` and FFmpeg with `second`: the one of the decoder
  /// that got further, libsndfile's on a tie, and a plain "not an audio file" when neither recognised anything.
  static func choose(_ first: DecoderOpenFailure, _ second: DecoderOpenFailure, path: String) -> PlayerError {
    switch (first.stage, second.stage) {
    case (.unrecognised, .unrecognised):
      .unsupportedFormat(path: path, detail: "not an audio file (format not recognised)")
    case (_, .refused), (_, .file), (.unrecognised, .malformed): second.error
    default: first.error
    }
  }
}
