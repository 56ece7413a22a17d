import PlayerCore

/// Where a decoder asked to seek really went: the frame the next read starts at, and why it is not the one
/// asked for. The output confirms this, never the request.
struct SeekLanding: Sendable, Equatable {
  /// The frame the decoder reads next, or nil when it could go neither to the target nor back.
  var frame: Int64?
  /// Why the decoder did not reach the target, or nil when it did.
  var error: PlayerError?

  /// A landing at `frame`, for `error`.
  init(frame: Int64?, error: PlayerError? = nil) {
    self.frame = frame
    self.error = error
  }

  /// Moves `decoder` to `target`, or back to `fallback` when it cannot go there.
  init(seeking decoder: any AudioDecoder, to target: Int64, orBackTo fallback: Int64) {
    do {
      frame = try decoder.seek(toFrame: target)
    } catch {
      self.error = error
      frame = try? decoder.seek(toFrame: fallback)
    }
  }
}
