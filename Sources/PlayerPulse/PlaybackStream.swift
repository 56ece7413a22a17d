import CPulseAudio
import PlayerCore

/// One libpulse playback stream (`pa_stream`) and its sample spec: made with the track's name for the server's
/// tools, connected corked, read (timing, the server's clock), written from a ``SampleRing`` and closed. What
/// the stream plays and where its audio is belongs to the ``StreamSession`` that holds it. Touched only with the
/// mainloop lock held.
struct PlaybackStream {
  /// The libpulse stream.
  let pointer: OpaquePointer
  /// Its sample spec at the server.
  let spec: pa_sample_spec

  /// The sample spec `decoder`'s audio goes out in; fails when the server cannot play it. 16-bit sources go out
  /// as they are: half the bytes of floats to copy and send, and nothing for a 16-bit sink to convert.
  static func spec(for decoder: any AudioDecoder) throws(PlayerError) -> pa_sample_spec {
    let info = decoder.info
    var spec = pa_sample_spec(
      format: decoder.nativeSampleFormat == .int16 ? PA_SAMPLE_S16LE : PA_SAMPLE_FLOAT32LE,
      rate: UInt32(info.sampleRate), channels: UInt8(info.channels))
    guard pa_sample_spec_valid(&spec) != 0 else {
      throw .unsupportedFormat(path: info.path, detail: "PulseAudio cannot play this sample format")
    }
    return spec
  }

  /// Makes a stream of `spec` on `context`, not connected yet; fails when libpulse refuses. The proplist names
  /// the track `info` for the server's tools (pavucontrol, `pactl`).
  static func make(on context: OpaquePointer, spec: pa_sample_spec, naming info: TrackInfo) throws(PlayerError)
    -> PlaybackStream
  {
    var spec = spec
    let props = pa_proplist_new()
    defer { pa_proplist_free(props) }
    pa_proplist_sets(props, PA_PROP_MEDIA_ROLE, "music")
    pa_proplist_sets(props, PA_PROP_MEDIA_NAME, info.displayTitle)
    pa_proplist_sets(props, PA_PROP_MEDIA_FILENAME, info.path)
    if let artist = info.artist { pa_proplist_sets(props, PA_PROP_MEDIA_ARTIST, artist) }
    guard let stream = pa_stream_new_with_proplist(context, info.displayTitle, &spec, nil, props) else {
      throw .outputFailed(operation: "open", detail: String(cString: pa_strerror(pa_context_errno(context))))
    }
    return PlaybackStream(pointer: stream, spec: spec)
  }

  /// Connects the stream for playback to `sink` (nil: the server's default), corked, with `attributes`, at
  /// `volume` percent (nil: the server chooses, and its session manager may restore the one saved for splay).
  /// False when libpulse refuses.
  func connect(to sink: String?, attributes: pa_buffer_attr, volume: Int?) -> Bool {
    var attributes = attributes
    var levels = pa_cvolume()
    pa_cvolume_set(&levels, UInt32(spec.channels), VolumeControl.paVolume(volume ?? 100))
    // No libpulse interpolation: the clock is computed from the timing updates (``serverClock(running:)``).
    let flags = pa_stream_flags_t(PA_STREAM_START_CORKED.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue)
    return withUnsafePointer(to: &levels) { levels in
      pa_stream_connect_playback(pointer, sink, &attributes, flags, volume == nil ? nil : levels, nil)
    } >= 0
  }

  /// The server has made the stream and not ended it.
  var isReady: Bool { pa_stream_get_state(pointer) == PA_STREAM_READY }

  /// The server's index of the stream (its sink input), nil until it is ready.
  var sinkInputIndex: UInt32? { isReady ? pa_stream_get_index(pointer) : nil }

  /// The sink the stream plays to, as the server last said.
  var deviceName: String? { pa_stream_get_device_name(pointer).map { String(cString: $0) } }

  /// Names the track now heard (a gapless advance) for the server's tools.
  func retitle(_ info: TrackInfo) {
    let props = pa_proplist_new()
    defer { pa_proplist_free(props) }
    pa_proplist_sets(props, PA_PROP_MEDIA_NAME, info.displayTitle)
    pa_proplist_sets(props, PA_PROP_MEDIA_FILENAME, info.path)
    if let operation = pa_stream_proplist_update(pointer, PA_UPDATE_REPLACE, props, nil, nil) {
      pa_operation_unref(operation)
    }
  }

  /// Asks the server for a timing update and does not wait for it: the latency-update callback sees it arrive.
  func requestTiming() {
    if let operation = pa_stream_update_timing_info(pointer, nil, nil) { pa_operation_unref(operation) }
  }

  /// The read index (µs of the stream) and the sink's latency of the last timing update; zeros without one.
  func readIndex() -> (read: Int64, sinkLatency: UInt64) {
    guard let timing = pa_stream_get_timing_info(pointer), timing.pointee.read_index_corrupt == 0,
      timing.pointee.read_index >= 0
    else { return (0, 0) }
    var spec = spec
    return (Int64(pa_bytes_to_usec(UInt64(timing.pointee.read_index), &spec)), timing.pointee.sink_usec)
  }

  /// The server's playback clock now, in µs of the stream: the stream time of the frame being heard, as
  /// `pa_stream_get_time` defines it, computed from the last timing update; negative while the sink still plays
  /// what it held from before the stream's start, nil without an update. Not libpulse's interpolation: it runs
  /// on with the wall clock on a stream that has never played, corked or not (0.2 s corked after `jump` put the
  /// next `play` 0.2 s ahead of the audio). `running`: uncorked, as the server acknowledged.
  func serverClock(running: Bool) -> Int64? {
    guard let timing = pa_stream_get_timing_info(pointer), timing.pointee.read_index_corrupt == 0,
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

  /// Writes what `ring` holds into the server's buffer, as much as the server takes now. Returns the frames
  /// written and, when a gapless boundary went by, how many of them came before it.
  func write(from ring: SampleRing) -> (frames: Int, beforeBoundary: Int?) {
    guard isReady else { return (0, nil) }
    let frameBytes = ring.frameBytes
    var written = 0
    var beforeBoundary: Int?
    var writable = pa_stream_writable_size(pointer)
    while writable >= frameBytes, ring.availableFrames > 0 {
      var data: UnsafeMutableRawPointer?
      var bytes = writable
      guard pa_stream_begin_write(pointer, &data, &bytes) == 0, let data, bytes >= frameBytes else { break }
      let (frames, crossing) = ring.pop(into: data, maxFrames: bytes / frameBytes)
      guard frames > 0 else {
        pa_stream_cancel_write(pointer)
        break
      }
      pa_stream_write(pointer, data, frames * frameBytes, nil, 0, PA_SEEK_RELATIVE)
      if let crossing { beforeBoundary = written + crossing }
      written += frames
      writable = pa_stream_writable_size(pointer)
    }
    return (written, beforeBoundary)
  }

  /// Stops the stream's callbacks: from here on libpulse tells nobody about it.
  func silenceCallbacks() {
    pa_stream_set_state_callback(pointer, nil, nil)
    pa_stream_set_write_callback(pointer, nil, nil)
    pa_stream_set_underflow_callback(pointer, nil, nil)
    pa_stream_set_moved_callback(pointer, nil, nil)
    pa_stream_set_latency_update_callback(pointer, nil, nil)
  }

  /// Disconnects and frees the stream. A stream the server is still making cannot be disconnected (it would
  /// stay at the server, an orphan, as long as the connection): its reference is kept until the server's
  /// answer, and it is deleted then.
  func close() {
    if pa_stream_get_state(pointer) == PA_STREAM_CREATING {
      pa_stream_set_state_callback(pointer, { stream, _ in Self.deleteOnceAnswered(stream) }, nil)
    } else {
      pa_stream_disconnect(pointer)
      pa_stream_unref(pointer)
    }
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
}
