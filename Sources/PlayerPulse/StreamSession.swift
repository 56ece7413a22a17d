import CPulseAudio
import PlayerCore

/// One playback stream at the server and what feeds it, from `pa_stream_new` until the stream is torn down:
/// the output holds one while a stream exists (``CurrentStream/session``), so nothing about a stream outlives it.
/// It makes, reads, writes and closes its own `pa_stream`, and keeps where its audio is (``StreamClock``): the
/// position, the gapless boundary and a live stream's titles are decided here from the server's clock. The
/// output's parts (``StreamLifecycle``, ``StreamFeed``, ``StreamTiming``, ``StreamTransport``) hear the callbacks,
/// issue the operations and carry out what the session decides; they tell the session what happened through the
/// methods below (its fields change nowhere else), and hand out the stream's waiters (``StreamWaiters``).
/// Touched only with the mainloop lock held.
struct StreamSession {
  /// The libpulse stream and its sample spec.
  let playback: PlaybackStream
  /// The decoded audio waiting to be written to `stream`.
  let ring: SampleRing
  /// The decoder of the track being heard; a gapless advance replaces it with the next track's.
  private(set) var decoder: any AudioDecoder
  /// The server acknowledged the last uncork, and no cork since.
  private(set) var running = false
  /// The drain of the track's end, while the server has not answered it.
  private(set) var draining: PulseOperation?
  /// The drain of the current track was acknowledged: its end was reported, and no next track may follow it.
  private(set) var endConfirmed = false
  /// Why the decoder stopped before the end of the track (the file was truncated while playing), if it did.
  private(set) var readFailure: PlayerError?
  /// The track that follows the current one in this stream, and where it begins.
  private(set) var gapless = GaplessBoundary()
  /// A live stream's titles decoded ahead of the audio, until the server plays them.
  private(set) var titles = TitleMarks()
  /// What waits on this stream: its creation, its first audio, a timing update.
  var waiters = StreamWaiters()
  /// The anchor, the frames written since and the confirmed position (see ``StreamClock``).
  private(set) var clock: StreamClock
  /// The stream's mainloop timers (timing requests, the gapless and title checks, the drain's wait), cancelled
  /// when it closes or its connection goes.
  let timers: MainloopTimers

  /// The stream's sample rate.
  var sampleRate: Int { Int(spec.rate) }

  /// Audio flows with nothing in the way of a larger buffer: uncorked, not draining, and the track not all
  /// decoded yet.
  var audioFlows: Bool { running && draining == nil && !ring.drained }

  /// The whole track is at the server and nothing drains it yet, while playing: its drain is due.
  var awaitsDrain: Bool { running && draining == nil && ring.drained }

  /// How long (µs) to wait before the drain, so that at most `lead` µs of the track is left at the server when
  /// it begins; 0 when that is now or the server's clock does not tell.
  func drainWait(leaving lead: UInt64) -> UInt64 {
    guard let end = clock.writtenEnd, let usec = streamClock(), end > usec + lead else { return 0 }
    return end - usec - lead
  }

  /// The server acknowledged the drain: the stream stops at the track's end. A track whose file could not be
  /// read to the end stopped where its audio did, not at the length its header declared, and so did a live
  /// stream: returns that position, and the reason when the read failed.
  mutating func drained() -> (end: Double, failure: PlayerError?) {
    let info = decoder.info
    let end = readFailure == nil && !info.isLive ? info.duration : Double(ring.frame) / Double(info.sampleRate)
    running = false
    endConfirmed = true
    clock.ended(at: end)
    return (end, readFailure)
  }

  // MARK: - What happened to the stream

  /// The stream was made to play its track from `seconds` (within the track).
  mutating func created(at seconds: Double) {
    let info = decoder.info
    let frame = min(max(Int64((seconds * Double(info.sampleRate)).rounded()), 0), info.frames)
    clock.streamCreated(at: Double(frame) / Double(info.sampleRate), sampleRate: info.sampleRate)
  }

  /// The decoder landed at `seconds`, not where it was asked to move: the position counts from there.
  mutating func moved(to seconds: Double) { clock.moved(to: seconds) }

  /// An uncork is about to be sent: the clock is stale until a timing update after it.
  mutating func uncorking() {
    let read = readIndex().read
    clock.uncorking(read: read)
  }

  /// The server acknowledged an uncork at `now`: audio flows.
  mutating func uncorked(at now: UInt64) {
    clock.uncorked(at: now)
    running = true
  }

  /// The server's first timing update after an uncork came: the clock is true again.
  mutating func timingRefreshed() { clock.refreshed() }

  /// The server's clock was seen to begin only at `now`, after a wait for it (``StreamClock/serverBegan(at:)``).
  mutating func serverBegan(at now: UInt64) { clock.serverBegan(at: now) }

  /// The server acknowledged a cork: nothing plays.
  mutating func corked() { running = false }

  /// A seek or stop begins: corked, the end not confirmed any more, and a next track decoded already is
  /// decoded again from its start later.
  mutating func repositioning() {
    endConfirmed = false
    running = false
    gapless.repositioned()
  }

  /// A flush was sent: what is written from here on plays from where it leaves the read index.
  mutating func flushing() { clock.flushing() }

  /// The server acknowledged the flush.
  mutating func flushed() { clock.flushed() }

  /// The timing update after a flush came: the read index, where new audio starts, is `seconds` of the track.
  mutating func anchored(at seconds: Double) {
    let streamTime = streamClock()
    clock.anchored(at: seconds, streamTime: streamTime)
  }

  /// The decoder landed after a seek (`landing`): titles placed in audio that will not play go, and a read
  /// that failed there is the reason for the end to come.
  mutating func landed(_ landing: SeekLanding) {
    titles.removeAll()
    readFailure = landing.frame == nil ? landing.error : nil
  }

  /// The decoder could not read the track to its end (the file was truncated while playing).
  mutating func readFailed(_ error: PlayerError) { readFailure = error }

  /// The drain of the track's end was sent as `operation`.
  mutating func drainBegan(_ operation: PulseOperation?) { draining = operation }

  /// The drain is over (answered, or its connection went), or is to be cancelled: returns it when one waited.
  @discardableResult
  mutating func drainEnded() -> PulseOperation? {
    defer { draining = nil }
    return draining
  }

  /// The decoder reached the current track's end (fill `generation`): when a next track was offered, marks the
  /// boundary in the ring and returns that track's decoder, and whether it must be rewound first.
  mutating func continueWithUpcoming(generation: UInt64) -> (decoder: any AudioDecoder, rewind: Bool)? {
    guard gapless.canContinue, ring.markBoundary(generation: generation) else { return nil }
    return gapless.startFeeding()
  }

  /// The decoder that fills the ring now: the next track's once the current track's end was decoded.
  var feedingDecoder: (any AudioDecoder)? { gapless.feedingUpcoming ? gapless.upcoming : decoder }

  /// The titles whose audio `position` has reached, oldest first; they are taken.
  mutating func heardTitles(by position: Double) -> [String] { titles.heard(by: position) }

  // MARK: - The stream at the server

  /// Makes a stream for `decoder`'s track on `context`, not connected yet, and its ring of `ringFrames(spec)`
  /// frames; fails when the server cannot play the format or libpulse refuses.
  static func make(
    on context: OpaquePointer, timersOf mainloop: OpaquePointer, for decoder: any AudioDecoder,
    ringFrames: (pa_sample_spec) -> Int
  ) throws(PlayerError) -> StreamSession {
    let info = decoder.info
    let spec = try PlaybackStream.spec(for: decoder)
    // Decode seconds ahead of the server's buffer: the decoding queue may lose the CPU for a while on a busy
    // machine, and the write callback must still find audio to copy.
    let bytes = decoder.nativeSampleFormat.bytes
    guard let ring = SampleRing(frames: ringFrames(spec), channels: info.channels, sampleBytes: bytes) else {
      throw .outputFailed(operation: "open", detail: "no memory for the sample ring")
    }
    let playback = try PlaybackStream.make(on: context, spec: spec, naming: info)
    return StreamSession(
      playback: playback, ring: ring, decoder: decoder, clock: StreamClock(), timers: MainloopTimers(mainloop: mainloop)
    )
  }

  /// The libpulse stream.
  var stream: OpaquePointer { playback.pointer }

  /// The stream's sample spec at the server.
  var spec: pa_sample_spec { playback.spec }

  /// Connects the stream (``PlaybackStream/connect(to:attributes:volume:)``).
  func connect(to sink: String?, attributes: pa_buffer_attr, volume: Int?) -> Bool {
    playback.connect(to: sink, attributes: attributes, volume: volume)
  }

  /// The server has made the stream and not ended it.
  var isReady: Bool { playback.isReady }

  /// The server's index of the stream (its sink input), nil until it is ready.
  var sinkInputIndex: UInt32? { playback.sinkInputIndex }

  /// The sink the stream plays to, as the server last said.
  var deviceName: String? { playback.deviceName }

  /// Asks the server for a timing update and does not wait for it: the latency-update callback sees it arrive.
  func requestTiming() { playback.requestTiming() }

  /// The read index (µs of the stream) and the sink's latency of the last timing update; zeros without one.
  func readIndex() -> (read: Int64, sinkLatency: UInt64) { playback.readIndex() }

  /// The server's playback clock now, in µs of the stream (``PlaybackStream/serverClock(running:)``).
  func serverClock() -> Int64? { playback.serverClock(running: running) }

  /// Stops the stream's callbacks: from here on libpulse tells the output nothing about it.
  func silenceCallbacks() { playback.silenceCallbacks() }

  // MARK: - Where the audio is

  /// ``serverClock()`` while the clock is fresh; nil while it is stale (``StreamClock/isStale``) or unknown.
  func signedClock() -> Int64? { clock.isStale ? nil : serverClock() }

  /// ``signedClock()``, counted from the stream's start (never negative).
  func streamClock() -> UInt64? { signedClock().map { UInt64(max($0, 0)) } }

  /// The played position at `now`: the anchor plus the stream time since it, through the ``PositionFilter``
  /// (never backwards between seeks, never faster than real time, within the track). Without a fresh clock
  /// (`-PA_ERR_NODATA`, or stale) the last position holds.
  mutating func position(at now: UInt64) -> Double {
    let usec = streamClock()
    return clock.position(streamClock: usec, at: now, running: running, duration: decoder.info.duration)
  }

  /// When the audio at `position` will be heard (monotonic ns), while playing and the server has not played up
  /// to it yet: after a start, a resume or a seek, by the sink's latency. Nil once heard.
  func movesAt(position: Double, now: UInt64) -> UInt64? {
    guard running, let signed = signedClock() else { return nil }
    return clock.movesAt(position: position, signedClock: signed, now: now)
  }

  /// Enough audio to start: 50 ms in the ring or already in the server's buffer, or the end of the track.
  var isPrefilled: Bool {
    let wanted = max(1, Int64(Double(sampleRate) * 0.05))
    return clock.writtenFrames + Int64(ring.availableFrames) >= wanted || ring.fillState.endOfTrack
  }

  /// Writes what the ring holds into the server's buffer (``PlaybackStream/write(from:)``) and counts it; true when the
  /// first frame of a gapless next track went out, whose place is then known.
  mutating func pump() -> Bool {
    let (frames, beforeBoundary) = playback.write(from: ring)
    if let beforeBoundary { gapless.written(before: clock.writtenFrames + Int64(beforeBoundary)) }
    clock.wrote(frames)
    return beforeBoundary != nil
  }

  /// Moves on to the gapless next track once the server's clock has passed the boundary (the stream numbered
  /// `previous` is left): from then on the position counts from that track's start, and the server's tools
  /// name it. Returns the track now heard; nil before the boundary.
  mutating func crossBoundaryIfPlayed(leaving previous: UInt64, at now: UInt64) -> TrackInfo? {
    guard gapless.boundaryFrames != nil, let usec = streamClock(),
      let (next, boundary) = gapless.advance(
        at: usec, anchorStreamTime: clock.anchorStreamTime, sampleRate: sampleRate)
    else { return nil }
    decoder = next
    let info = next.info
    gapless.began(by: GaplessAdvance(from: previous, track: info))
    let position = min(Double(usec - boundary.streamTime) / 1e6, info.duration)
    clock.crossed(
      at: boundary.streamTime, writtenBefore: boundary.writtenFrames, seconds: position, running: running, now: now)
    playback.retitle(info)
    return info
  }

  /// What offering a next track came to (``offerNext(_:)``).
  enum NextTrackOffer: Equatable {
    /// Not taken: another sample format, a next track decoded already, or offered too late.
    case refused
    /// Taken: it is decoded once the current track's end is reached.
    case queued
    /// Taken, and the current track's end was decoded already: its decoding starts now, and the drain that
    /// waited for the stream's end must go.
    case continuesNow
  }

  /// Takes `next` as the track after the current one when it has the same sample format and nothing follows
  /// already. The decoder may have queued the current track's end: the ring is continued until the drain has
  /// begun (it waits until the server holds at most `targetLatency` of the track); after that it is too late,
  /// for this one and for any offered before it.
  mutating func offerNext(_ next: any AudioDecoder) -> NextTrackOffer {
    guard !gapless.feedingUpcoming, decoder.info.sampleRate == next.info.sampleRate,
      decoder.info.channels == next.info.channels, decoder.nativeSampleFormat == next.nativeSampleFormat
    else { return .refused }
    guard ring.fillState.endOfTrack else {
      gapless.offer(next)
      return .queued
    }
    guard draining == nil, !endConfirmed, ring.markBoundary(generation: ring.fillState.generation) else {
      gapless.withdraw()
      return .refused
    }
    gapless.offer(next)
    _ = gapless.startFeeding()
    return .continuesNow
  }

  /// Seconds until the server's clock should reach the gapless boundary, while playing (a corked stream's clock
  /// stands still); nil when the clock or the boundary is not known.
  func boundaryWait() -> Double? {
    guard running, let usec = streamClock() else { return nil }
    return gapless.wait(from: usec, anchorStreamTime: clock.anchorStreamTime, sampleRate: sampleRate)
  }

  /// Takes a live stream's title changes decoded by `source`, when it is the track being heard.
  mutating func note(_ changes: [TitleChange], from source: any AudioDecoder) {
    guard source === decoder else { return }
    titles.add(changes, sampleRate: sampleRate)
  }

  /// Seconds until the next title's audio should be heard, while playing; nil when no title waits. The
  /// position is read only when one does: a file's start must not pay for it.
  mutating func titleWait(at now: UInt64) -> Double? {
    guard running, !titles.isEmpty else { return nil }
    let heard = position(at: now)
    return titles.wait(from: heard)
  }

  /// Cancels the stream's timers, closes it (``PlaybackStream/close()``) and lets its audio go: the ring is
  /// emptied, and the decoders give up a fill that waits for a stalled stream (it must not hold the decoding
  /// queue the next track needs).
  func close() {
    timers.cancelAll()
    playback.close()
    ring.invalidate()
    decoder.abandon()
    gapless.upcoming?.abandon()
  }
}
