/// The output's current stream: its session while one exists, and which stream is current (``StreamLineage``).
/// One instance per output, shared by the parts that act on the stream (``StreamLifecycle``, ``StreamFeed``,
/// ``StreamTiming``, ``StreamTransport``, ``StreamPreparer``): each changes the session only through its methods.
/// Touched only with the mainloop lock held.
final class CurrentStream {
  /// The stream and what feeds it, while one exists (see ``StreamSession``).
  var session: StreamSession?
  /// The current stream's number, and the stream prepared for the first `open`.
  var lineage = StreamLineage()

  /// Whether `ring` is the current stream's: a fill or a check about another ring is about a stream gone.
  func owns(_ ring: SampleRing) -> Bool { session?.ring === ring }
}
