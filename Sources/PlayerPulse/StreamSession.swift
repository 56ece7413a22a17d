import CPulseAudio
import PlayerCore

/// One playback stream at the server and what feeds it, from `pa_stream_new` until the stream is torn down:
/// the output holds one while a stream exists (`PulseOutput.session`), so nothing about a stream outlives it.
/// It makes, reads, writes and closes its own `pa_stream`, and keeps where its audio is (``StreamClock``): the
/// position, the gapless boundary and a live stream's titles are decided here from the server's clock. The
/// output sets the callbacks, issues the operations and carries out what the session decides. Touched only
/// with the mainloop lock held.
struct StreamSession {
  /// The libpulse stream.
  let stream: OpaquePointer
  /// The stream's sample spec at the server.
  let spec: pa_sample_spec
  /// The decoded audio waiting to be written to `stream`.
  let ring: SampleRing
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
  /// The anchor, the frames written since and the confirmed position (see ``StreamClock``).
  var clock: StreamClock

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

  // MARK: - The stream at the server

  /// Makes a stream for `decoder`'s track on `context`, not connected yet, and its ring of `ringFrames(spec)`
  /// frames; fails when the server cannot play the format or libpulse refuses. The proplist names the track for
  /// the server's tools (pavucontrol, `pactl`).
  static func make(
    on context: OpaquePointer, for decoder: any AudioDecoder, ringFrames: (pa_sample_spec) -> Int
  ) throws(PlayerError) -> StreamSession {
    let info = decoder.info
    // 16-bit sources go out as they are: half the bytes of floats to copy and send, and nothing for a 16-bit
    // sink to convert.
    let format = decoder.nativeSampleFormat
    var spec = pa_sample_spec(
      format: format == .int16 ? PA_SAMPLE_S16LE : PA_SAMPLE_FLOAT32LE, rate: UInt32(info.sampleRate),
      channels: UInt8(info.channels))
    guard pa_sample_spec_valid(&spec) != 0 else {
      throw .unsupportedFormat(path: info.path, detail: "PulseAudio cannot play this sample format")
    }
    // Decode seconds ahead of the server's buffer: the decoding queue may lose the CPU for a while on a busy
    // machine, and the write callback must still find audio to copy.
    guard let ring = SampleRing(frames: ringFrames(spec), channels: info.channels, sampleBytes: format.bytes) else {
      throw .outputFailed(operation: "open", detail: "no memory for the sample ring")
    }
    let props = pa_proplist_new()
    defer { pa_proplist_free(props) }
    pa_proplist_sets(props, PA_PROP_MEDIA_ROLE, "music")
    pa_proplist_sets(props, PA_PROP_MEDIA_NAME, info.displayTitle)
    pa_proplist_sets(props, PA_PROP_MEDIA_FILENAME, info.path)
    if let artist = info.artist { pa_proplist_sets(props, PA_PROP_MEDIA_ARTIST, artist) }
    guard let stream = pa_stream_new_with_proplist(context, info.displayTitle, &spec, nil, props) else {
      throw .outputFailed(operation: "open", detail: String(cString: pa_strerror(pa_context_errno(context))))
    }
    return StreamSession(stream: stream, spec: spec, ring: ring, decoder: decoder, clock: StreamClock())
  }

  /// Connects the stream for playback to `sink` (nil: the server's default), corked, with `attributes`, at
  /// `volume` percent (nil: the server chooses, and its session manager may restore the one saved for splay).
  /// False when libpulse refuses.
  func connect(to sink: String?, attributes: pa_buffer_attr, volume: Int?) -> Bool {
    var attributes = attributes
    var levels = pa_cvolume()
    pa_cvolume_set(&levels, UInt32(spec.channels), VolumeControl.paVolume(volume ?? 100))
    // No libpulse interpolation: the clock is computed from the timing updates (``serverClock()``).
    let flags = pa_stream_flags_t(PA_STREAM_START_CORKED.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue)
    return withUnsafePointer(to: &levels) { levels in
      pa_stream_connect_playback(stream, sink, &attributes, flags, volume == nil ? nil : levels, nil)
    } >= 0
  }

  /// The server has made the stream and not ended it.
  var isReady: Bool { pa_stream_get_state(stream) == PA_STREAM_READY }

  /// The server's index of the stream (its sink input), nil until it is ready.
  var sinkInputIndex: UInt32? { isReady ? pa_stream_get_index(stream) : nil }

  /// The sink the stream plays to, as the server last said.
  var deviceName: String? { pa_stream_get_device_name(stream).map { String(cString: $0) } }

  /// Names the track now heard (a gapless advance) for the server's tools.
  func retitle(_ info: TrackInfo) {
    let props = pa_proplist_new()
    defer { pa_proplist_free(props) }
    pa_proplist_sets(props, PA_PROP_MEDIA_NAME, info.displayTitle)
    pa_proplist_sets(props, PA_PROP_MEDIA_FILENAME, info.path)
    if let operation = pa_stream_proplist_update(stream, PA_UPDATE_REPLACE, props, nil, nil) {
      pa_operation_unref(operation)
    }
  }

  /// Asks the server for a timing update and does not wait for it: the latency-update callback sees it arrive.
  func requestTiming() {
    if let operation = pa_stream_update_timing_info(stream, nil, nil) { pa_operation_unref(operation) }
  }

  /// The read index (µs of the stream) and the sink's latency of the last timing update; zeros without one.
  func readIndex() -> (read: Int64, sinkLatency: UInt64) {
    guard let timing = pa_stream_get_timing_info(stream), timing.pointee.read_index_corrupt == 0,
      timing.pointee.read_index >= 0
    else { return (0, 0) }
    var spec = spec
    return (Int64(pa_bytes_to_usec(UInt64(timing.pointee.read_index), &spec)), timing.pointee.sink_usec)
  }

  /// The server's playback clock now, in µs of the stream: the stream time of the frame being heard, as
  /// `pa_stream_get_time` defines it, computed from the last timing update; negative while the sink still plays
  /// what it held from before the stream's start, nil without an update. Not libpulse's interpolation: it runs
  /// on with the wall clock on a stream that has never played, corked or not (0.2 s corked after `jump` put the
  /// next `play` 0.2 s ahead of the audio).
  func serverClock() -> Int64? {
    guard let timing = pa_stream_get_timing_info(stream), timing.pointee.read_index_corrupt == 0,
      timing.pointee.read_index >= 0
    else { return nil }
    var spec = spec
    let info = timing.pointee
    let read = Int64(pa_bytes_to_usec(UInt64(info.read_index), &spec))
    // Corked, nothing is heard: the clock stands at the read index, where the next frame will play from.
    guard running else { return read }
    // The frame being heard is the sink's latency behind the read index, which has moved on since the update
    // while the server played.
    var usec = read - Int64(info.sink_usec)
    if info.playing != 0 {
      var stamp = info.timestamp
      usec += Int64(pa_timeval_age(&stamp))
    }
    return usec
  }

  /// Writes what the ring holds into the server's buffer, as much as the server takes now. Returns the frames
  /// written and, when a gapless boundary went by, how many of them came before it.
  func writeFromRing() -> (frames: Int, beforeBoundary: Int?) {
    guard isReady else { return (0, nil) }
    let frameBytes = ring.frameBytes
    var written = 0
    var beforeBoundary: Int?
    var writable = pa_stream_writable_size(stream)
    while writable >= frameBytes, ring.availableFrames > 0 {
      var data: UnsafeMutableRawPointer?
      var bytes = writable
      guard pa_stream_begin_write(stream, &data, &bytes) == 0, let data, bytes >= frameBytes else { break }
      let (frames, crossing) = ring.pop(into: data, maxFrames: bytes / frameBytes)
      guard frames > 0 else {
        pa_stream_cancel_write(stream)
        break
      }
      pa_stream_write(stream, data, frames * frameBytes, nil, 0, PA_SEEK_RELATIVE)
      if let crossing { beforeBoundary = written + crossing }
      written += frames
      writable = pa_stream_writable_size(stream)
    }
    return (written, beforeBoundary)
  }

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

  /// Writes what the ring holds into the server's buffer (``writeFromRing()``) and counts it; true when the
  /// first frame of a gapless next track went out, whose place is then known.
  mutating func pump() -> Bool {
    let (frames, beforeBoundary) = writeFromRing()
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
    retitle(info)
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

  /// Stops the stream's callbacks: from here on libpulse tells the output nothing about it.
  func silenceCallbacks() {
    pa_stream_set_state_callback(stream, nil, nil)
    pa_stream_set_write_callback(stream, nil, nil)
    pa_stream_set_underflow_callback(stream, nil, nil)
    pa_stream_set_moved_callback(stream, nil, nil)
    pa_stream_set_latency_update_callback(stream, nil, nil)
  }

  /// The state callback of a stream closed while the server was making it: deletes it once made, and lets it go
  /// once it has gone (libpulse holds it across the callback).
  private static func deleteOnceAnswered(_ stream: OpaquePointer?) {
    guard let stream else { return }
    switch pa_stream_get_state(stream) {
    case PA_STREAM_READY:
      pa_stream_disconnect(stream)
    case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
      pa_stream_set_state_callback(stream, nil, nil)
      pa_stream_unref(stream)
    default:
      return
    }
  }

  /// Disconnects and frees the stream, and lets its audio go: the ring is emptied, and the decoders give up a
  /// fill that waits for a stalled stream (it must not hold the decoding queue the next track needs).
  func close() {
    if pa_stream_get_state(stream) == PA_STREAM_CREATING {
      // libpulse cannot disconnect a stream before the server's answer: it would stay at the server, an orphan,
      // as long as the connection. The reference is kept until the answer comes and the stream is deleted then.
      pa_stream_set_state_callback(stream, { stream, _ in Self.deleteOnceAnswered(stream) }, nil)
    } else {
      pa_stream_disconnect(stream)
      pa_stream_unref(stream)
    }
    ring.invalidate()
    decoder.abandon()
    gapless.upcoming?.abandon()
  }
}
