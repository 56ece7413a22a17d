/// A source of decoded audio: interleaved 32-bit float frames, sample-exact seeking, and what the file says
/// about itself.
///
/// A decoder is used by one thread at a time (the output's decoding thread, or a test), but may move between
/// threads; implementations are therefore `Sendable`. Decoding never happens on an audio server's real-time
/// thread.
public protocol AudioDecoder: AnyObject, Sendable {
  /// The format, length and tags of the open file.
  var info: TrackInfo { get }

  /// Reads up to `frames` interleaved frames into `buffer` (which holds `frames * info.channels` floats).
  /// Returns the number of frames read; 0 means the end of the file.
  func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int

  /// Moves to `frame` (clamped to `0...info.frames`) and returns the frame the next `read` starts at.
  @discardableResult
  func seek(toFrame frame: Int64) throws(PlayerError) -> Int64
}

/// Opens decoders by path; the controller holds one so tests can substitute their own media.
public protocol AudioDecoderFactory: Sendable {
  /// Opens `path`, or throws a ``PlayerError`` that names the path and the cause.
  func open(_ path: String) throws(PlayerError) -> any AudioDecoder
}
