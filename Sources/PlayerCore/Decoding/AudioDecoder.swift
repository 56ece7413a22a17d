/// A source of decoded audio: interleaved 32-bit float frames (or 16-bit integers, for sources that hold
/// them: ``nativeSampleFormat``), sample-exact seeking, and what the file says about itself.
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

  /// The sample format that carries this source without loss in the fewest bytes: `.int16` for 16-bit PCM,
  /// whose samples an output can then send as they are (half the bytes of floats, and no conversion by a
  /// 16-bit sink). `.float32` by default.
  var nativeSampleFormat: DecodedSampleFormat { get }

  /// Reads up to `frames` interleaved frames of 16-bit samples into `buffer` (`frames * info.channels` of
  /// them), as ``read(into:frames:)-(UnsafeMutableBufferPointer<Float>,_)`` does for floats. By default the
  /// floats are read and rounded; a source whose ``nativeSampleFormat`` is `.int16` reads them exactly.
  func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws(PlayerError) -> Int

  /// Moves to `frame` (clamped to `0...info.frames`) and returns the frame the next `read` starts at.
  @discardableResult
  func seek(toFrame frame: Int64) throws(PlayerError) -> Int64
  /// The title changes decoded since the last call (a radio's ICY `StreamTitle`), each at the frame of this
  /// decoder's timeline where its audio begins; an output publishes each when that frame is heard. None by
  /// default: a file's tags do not change.
  func takeTitleChanges() -> [TitleChange]
  /// What a person should hear about while it plays, since the last call: a stream that dropped and is being
  /// reconnected. None by default.
  func takeNotices() -> [String]
  /// Ends a read that waits for the network, and fails those after it: the output lets this decoder go and
  /// must not wait for a stalled stream (its decoding queue serves the next track). Any thread; nothing by
  /// default.
  func abandon()
}

/// A track's title changing within its audio (internet radio announces each song so).
public struct TitleChange: Equatable, Sendable {
  /// The first frame of the audio the title belongs to.
  public var frame: Int64
  /// The new title.
  public var title: String

  /// Creates a change.
  public init(frame: Int64, title: String) {
    self.frame = frame
    self.title = title
  }
}

/// The sample formats a decoder hands out.
public enum DecodedSampleFormat: Sendable, Equatable {
  /// 32-bit float, -1...1.
  case float32
  /// Signed 16-bit integers.
  case int16

  /// Bytes per sample.
  public var bytes: Int { self == .int16 ? 2 : 4 }
}

extension AudioDecoder {
  /// None: a file's title does not change while it plays.
  public func takeTitleChanges() -> [TitleChange] { [] }

  /// None: a file has nothing to say while it plays.
  public func takeNotices() -> [String] { [] }

  /// Nothing: a file's reads do not wait for a network.
  public func abandon() {}

  /// Float, unless the decoder says otherwise.
  public var nativeSampleFormat: DecodedSampleFormat { .float32 }

  /// Reads floats and rounds them to 16 bits, clamped (for decoders without a 16-bit path of their own).
  public func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws(PlayerError) -> Int {
    // On the stack when it fits: no allocation per chunk on the decoding queue.
    try withUnsafeTemporaryAllocation(of: Float.self, capacity: frames * info.channels) {
      floats throws(PlayerError) in
      let read = try read(into: floats, frames: frames)
      for index in 0..<(read * info.channels) {
        buffer[index] = Int16(max(-32768, min(32767, (floats[index] * 32768).rounded())))
      }
      return read
    }
  }
}

/// Opens decoders by path; the controller holds one so tests can substitute their own media.
public protocol AudioDecoderFactory: Sendable {
  /// Opens `path`, or throws a ``PlayerError`` that names the path and the cause.
  func open(_ path: String) throws(PlayerError) -> any AudioDecoder

  /// Opens `path` to play in a queue played in `order`: what a factory that applies ReplayGain decides its
  /// `auto` mode by (album gain in order, track gain shuffled). By default, ``open(_:)``.
  func open(_ path: String, order: PlayOrder) throws(PlayerError) -> any AudioDecoder
}

/// How a queue plays its tracks.
public enum PlayOrder: Sendable, Equatable {
  /// In the queue's order: an album plays as it was made.
  case inOrder
  /// In a shuffled order.
  case shuffled
}

extension AudioDecoderFactory {
  /// ``open(_:)``: the order does not matter to this factory.
  public func open(_ path: String, order: PlayOrder) throws(PlayerError) -> any AudioDecoder {
    try open(path)
  }
}
