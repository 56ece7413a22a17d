import CPulseAudio
import PlayerCore

// The playback stream: creating it, following its state, tearing it down.
extension PulseOutput {
  /// The current stream's sample rate.
  var sampleRate: Int { clock.sampleRate }

  /// PulseAudio's name for `format` (little-endian, as every machine splay runs on).
  static func pulseFormat(_ format: DecodedSampleFormat) -> pa_sample_format_t {
    format == .int16 ? PA_SAMPLE_S16LE : PA_SAMPLE_FLOAT32LE
  }

  func createStreamLocked(
    for decoder: any AudioDecoder, at seconds: Double, volume: Int?,
    ready: @escaping (Result<Void, PlayerError>) -> Void
  ) {
    assertLocked()
    teardownStreamLocked()
    guard let context = connection.context, connection.isReady else {
      return ready(.failure(.outputLost(detail: "\(connection.serverName): not connected")))
    }
    let info = decoder.info
    // 16-bit sources go out as they are: half the bytes of floats to copy and send, and nothing for a 16-bit
    // sink to convert.
    let format = decoder.nativeSampleFormat
    var spec = pa_sample_spec(
      format: Self.pulseFormat(format), rate: UInt32(info.sampleRate), channels: UInt8(info.channels))
    guard pa_sample_spec_valid(&spec) != 0 else {
      return ready(.failure(.unsupportedFormat(path: info.path, detail: "PulseAudio cannot play this sample format")))
    }
    // Decode seconds ahead of the server's buffer: the decoding queue may lose the CPU for a while on a busy
    // machine, and the write callback must still find audio to copy.
    let ringFrames = max(
      Int(Double(info.sampleRate) * buffer.ringSeconds(bytesPerSecond: Self.bytesPerSecond(spec))), 4096)
    guard let ring = SampleRing(frames: ringFrames, channels: info.channels, sampleBytes: format.bytes) else {
      return ready(.failure(.outputFailed(operation: "open", detail: "no memory for the sample ring")))
    }
    let props = pa_proplist_new()
    pa_proplist_sets(props, PA_PROP_MEDIA_ROLE, "music")
    pa_proplist_sets(props, PA_PROP_MEDIA_NAME, info.displayTitle)
    pa_proplist_sets(props, PA_PROP_MEDIA_FILENAME, info.path)
    if let artist = info.artist { pa_proplist_sets(props, PA_PROP_MEDIA_ARTIST, artist) }
    guard let s = pa_stream_new_with_proplist(context, info.displayTitle, &spec, nil, props) else {
      pa_proplist_free(props)
      return ready(.failure(.outputFailed(operation: "open", detail: connection.lastError())))
    }
    pa_proplist_free(props)
    session = StreamSession(stream: s, ring: ring, sampleFormat: format, decoder: decoder)
    _ = lineage.begin()
    self.volume.streamCreated(volume: volume)
    let frame = Int64((seconds * Double(info.sampleRate)).rounded())
    clock.streamCreated(
      at: Double(min(max(frame, 0), info.frames)) / Double(info.sampleRate), sampleRate: info.sampleRate)
    ring.invalidate()
    // A decoder that cannot start there starts at 0, and the open confirms that (``openAnew``).
    refillLocked(from: frame, orBackTo: 0, ring: ring, decoder: decoder) { [weak self] landing in
      guard let self, let reached = landing.frame, reached != frame else { return }
      clock.moved(to: Double(reached) / Double(info.sampleRate))
    }

    let me = Unmanaged.passUnretained(self).toOpaque()
    // Ready once the server has made it and its volume is known.
    session?.waiters.waitForReady { [self] result in
      guard case .success = result else { return ready(result) }
      self.volume.settleNewStreamLocked(s, channels: info.channels) { ready(.success(())) }
    }
    pa_stream_set_state_callback(
      s,
      { _, userdata in Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue().streamStateChangedLocked() },
      me)
    pa_stream_set_write_callback(
      s, { _, _, userdata in Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue().pumpLocked() }, me)
    pa_stream_set_moved_callback(
      s, { _, userdata in Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue().reportDeviceLocked() },
      me)
    pa_stream_set_latency_update_callback(
      s, { _, userdata in Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue().timingUpdatedLocked() },
      me)
    pa_stream_set_underflow_callback(
      s,
      { _, userdata in
        let output = Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue()
        output.announceLocked(.underflow)
      }, me)

    buffer.streamCreated()
    var attr = pulseAttributes(buffer.startAttributes, spec)
    // Without a volume the server chooses (its session manager may restore the one saved for splay).
    var cv = pa_cvolume()
    pa_cvolume_set(&cv, UInt32(info.channels), VolumeControl.paVolume(volume ?? 100))
    // No libpulse interpolation: the clock is computed from the timing updates (``streamClockLocked()``).
    let flags = pa_stream_flags_t(PA_STREAM_START_CORKED.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue)
    let connected = withUnsafePointer(to: &cv) { levels in
      pa_stream_connect_playback(s, configuration.sink, &attr, flags, self.volume.isExplicit ? levels : nil, nil)
    }
    if connected < 0 {
      _ = session?.waiters.takeReady()
      teardownStreamLocked()
      ready(.failure(.outputFailed(operation: "open", detail: connection.lastError())))
    }
  }

  private func streamStateChangedLocked() {
    guard let stream = session?.stream else { return }
    switch pa_stream_get_state(stream) {
    case PA_STREAM_READY:
      requestTimingLocked()
      session?.waiters.takeReady()?(.success(()))
    case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
      let detail = connection.lastError()
      if let ready = session?.waiters.takeReady() {
        let error = openFailureLocked(detail: detail)
        teardownStreamLocked()
        ready(.failure(error))
      } else if connection.isReady {
        // The server killed the stream (its sink went away, for example): the track cannot continue.
        let error = PlayerError.outputLost(detail: "the stream was closed by the server: \(detail)")
        failPendingStreamOperationsLocked(error)
        teardownStreamLocked()
        announceLocked(.lost(error))
      }
    default:
      break
    }
  }

  /// Why the server refused to make the stream: a sink named in the configuration that it does not have is the
  /// output being unavailable, named as such; anything else is the server's reason.
  private func openFailureLocked(detail: String) -> PlayerError {
    if let sink = configuration.sink, let context = connection.context,
      pa_context_errno(context) == Int32(PA_ERR_NOENTITY.rawValue)
    {
      return .sinkNotFound(server: connection.serverName, sink: sink)
    }
    return .outputFailed(operation: "open", detail: detail)
  }

  /// The sink the open stream plays to, as the server last said.
  var deviceNameLocked: String? {
    guard let stream = session?.stream, let name = pa_stream_get_device_name(stream) else { return nil }
    return String(cString: name)
  }

  /// Reports the sink the server moved the stream to (mainloop thread).
  private func reportDeviceLocked() {
    guard let device = deviceNameLocked else { return }
    announceLocked(.deviceChanged(device))
  }

  /// Fails what waits for the stream: its operations (not a volume change, which is the context's) and the
  /// pauses waiting for a timing update.
  private func failPendingStreamOperationsLocked(_ error: PlayerError) {
    requests.fail(with: error) { $0.name != "volume" }
    // Pauses whose cork was acknowledged wait for no operation of theirs, only for the next timing update.
    for cork in session?.waiters.takeTiming() ?? [] { cork.fail(error) }
  }

  /// Disconnects the stream and forgets everything about it; what waited for it is cancelled.
  func teardownStreamLocked() {
    assertLocked()
    timers.drain.cancel()
    timers.title.cancel()
    clock.refreshed()
    guard let stream = session?.stream else { return }
    pa_stream_set_state_callback(stream, nil, nil)
    pa_stream_set_write_callback(stream, nil, nil)
    pa_stream_set_underflow_callback(stream, nil, nil)
    pa_stream_set_moved_callback(stream, nil, nil)
    pa_stream_set_latency_update_callback(stream, nil, nil)
    failPendingStreamOperationsLocked(.cancelled)
    pa_stream_disconnect(stream)
    pa_stream_unref(stream)
    guard var ended = session.take() else { return }
    ended.ring.invalidate()
    // A fill that waits for a stalled stream must not hold the decoding queue the next track needs.
    ended.decoder.abandon()
    ended.gapless.upcoming?.abandon()
    // An `open` (or a prepared stream) still waiting for the server to create this stream will not get it.
    ended.waiters.takeReady()?(.failure(.cancelled))
    let (resolvers, actions) = ended.waiters.takePrefill()
    if !resolvers.isEmpty { handOff { for resolver in resolvers { resolver.reject(.cancelled) } } }
    for action in actions { action(false) }
  }
}
