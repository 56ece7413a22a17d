import Futures
import PlayerCore

/// A stream made by ``PulseOutput/prepare(_:playingWhen:)`` before the first `open`: for which decoder, which
/// stream number, and the future that settles when it is ready. Its `var`s are read and written with the
/// mainloop lock held only, like the output's own.
final class PreparedStream: @unchecked Sendable {
  /// Held, not only identified: compared by identity with the decoder of the first `open`.
  let decoder: any AudioDecoder
  /// Settles when the server has created the stream, or for a stream prepared to play, acknowledged the uncork.
  let ready: Future<Void, PlayerError>
  let resolver: Future<Void, PlayerError>.Resolver
  /// The stream number the output gave it once created.
  var stream: UInt64 = 0
  /// An `open` of something else came first: the stream is not to be made.
  var dropped = false
  /// When `ready` settles, and whether the stream plays first.
  var start: PreparedStart

  init(decoder: any AudioDecoder, playing: Bool) {
    self.decoder = decoder
    start = PreparedStart(playing: playing)
    (ready, resolver) = Future<Void, PlayerError>.pending()
  }
}
