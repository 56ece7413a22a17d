import PlayerCore

/// One playback stream at the server and what feeds it, from `pa_stream_new` until the stream is torn down:
/// the output holds one while a stream exists (`PulseOutput.session`), so nothing about a stream outlives it.
/// Touched only with the mainloop lock held.
struct StreamSession {
  /// The libpulse stream.
  let stream: OpaquePointer
  /// The decoded audio waiting to be written to `stream`.
  let ring: SampleRing
  /// The format of `ring` and of the stream at the server.
  let sampleFormat: DecodedSampleFormat
  /// The decoder of the track being heard; a gapless advance replaces it with the next track's.
  var decoder: any AudioDecoder
  /// The server acknowledged the last uncork, and no cork since.
  var running = false
  /// The drain of the track's end, while the server has not answered it.
  var draining: PulseOperation?
  /// The drain of the current track was acknowledged: its end was reported, and no next track may follow it.
  var endConfirmed = false
  /// Why the decoder stopped before the end of the track (the file was truncated while playing), if it did.
  var readFailure: PlayerError?
  /// The track that follows the current one in this stream, and where it begins.
  var gapless = GaplessBoundary()
  /// A live stream's titles decoded ahead of the audio, until the server plays them.
  var titles = TitleMarks()
  /// What waits on this stream: its creation, its first audio, a timing update.
  var waiters = StreamWaiters()
}
