import CPulseAudio

// The stream's buffer at the server: small while a start or a command may wait on it, large while audio flows.
extension PulseOutput {
  /// The attributes a stream starts with and goes back to at each cork: `targetLatency` of buffer, asked for a
  /// quarter at a time. Left to itself, PulseAudio 16 asks for 20 ms at a time, which wakes this process and the
  /// server fifty times a second for nothing.
  func startBufferAttributes(_ spec: pa_sample_spec) -> pa_buffer_attr {
    var spec = spec
    let target = UInt64(configuration.targetLatency * 1e6)
    return pa_buffer_attr(
      maxlength: UInt32.max, tlength: UInt32(pa_usec_to_bytes(target, &spec)), prebuf: UInt32.max,
      minreq: UInt32(pa_usec_to_bytes(target / 4, &spec)), fragsize: UInt32.max)
  }

  /// The attributes once audio flows steadily: `steadyLatency` of buffer (less for formats with more bytes a
  /// second than 3 MiB holds: PulseAudio's queue takes 4 MiB at most).
  ///
  /// With `PA_STREAM_ADJUST_LATENCY` the sink's latency is (tlength − 2·minreq) / 2: `minreq` keeps it at 50 ms
  /// while the queue fills, then `relaxed` lets the sink hold a quarter, which lets the server sleep. Not sooner:
  /// a sink that takes seconds from a stream holding less underruns it. Cork, flush and volume stay immediate (the
  /// server rewinds); the start-up buffer comes back once the track is at the server, so the drain is
  /// acknowledged as the end plays (``shrinkBufferLocked()``). Measured: docs/performance.md, "The server's share".
  private func steadyBufferAttributes(_ spec: pa_sample_spec, relaxed: Bool) -> pa_buffer_attr {
    var spec = spec
    let (steady, request) = steadyLengths(spec)
    let minreq = relaxed ? steady / 4 : request
    return pa_buffer_attr(
      maxlength: UInt32.max, tlength: UInt32(pa_usec_to_bytes(UInt64(steady * 1e6), &spec)),
      prebuf: UInt32(pa_usec_to_bytes(UInt64(configuration.targetLatency * 1e6), &spec)),
      minreq: UInt32(pa_usec_to_bytes(UInt64(minreq * 1e6), &spec)), fragsize: UInt32.max)
  }

  /// The steady buffer's length and its request size (`minreq`) while its queue fills, in seconds, for audio of
  /// `spec`.
  private func steadyLengths(_ spec: pa_sample_spec) -> (length: Double, request: Double) {
    var spec = spec
    let steady = min(configuration.steadyLatency, Double(3 << 20) / Double(pa_bytes_per_second(&spec)))
    return (steady, (steady - 2 * (configuration.targetLatency / 4)) / 2)
  }

  /// How many seconds the sample ring holds for a new stream of `spec` (lock held): two, or where the steady
  /// buffer may come a whole request of the server and half a second, so that one request is answered from the
  /// ring at once and one fill refills it (a ring shorter than a request took two fills and three wake-ups more
  /// per request). Also while the server is not known yet (a stream prepared right after connecting).
  func ringSecondsLocked(_ spec: pa_sample_spec) -> Double {
    let least = max(configuration.targetLatency * 2, 2)
    let (length, request) = steadyLengths(spec)
    guard length > configuration.targetLatency, serverKind != .pipeWire else { return least }
    return max(least, request + 0.5)
  }

  private var streamSpecLocked: pa_sample_spec {
    pa_sample_spec(format: Self.pulseFormat(sampleFormat), rate: UInt32(sampleRate), channels: UInt8(ringChannels))
  }

  /// Whether the steady buffer may be asked for: on PulseAudio, not on PipeWire's pulse server, where a larger
  /// request raises the quantum of the whole graph.
  private func mayUseSteadyBufferLocked(_ spec: pa_sample_spec) -> Bool {
    steadyLengths(spec).length > configuration.targetLatency && serverKind == .pulseAudio
  }

  /// Audio has flowed for a while with nothing asked: the steady buffer (lock held). Nothing waits for it.
  func enlargeBufferLocked() {
    guard !bufferIsSteady, running, draining == nil, ring?.drained == false,
      mayUseSteadyBufferLocked(streamSpecLocked), let stream
    else { return }
    bufferIsSteady = true
    setBufferAttributesLocked(stream, steadyBufferAttributes(streamSpecLocked, relaxed: false))
  }

  /// The steady buffer's queue at the server is full: lets the sink hold a quarter of it (lock held). Judged by
  /// the timing update that just arrived.
  func relaxSinkLatencyLocked() {
    guard bufferIsSteady, !sinkIsRelaxed, running, draining == nil, ring?.drained == false, let stream,
      let timing = pa_stream_get_timing_info(stream), timing.pointee.write_index_corrupt == 0,
      timing.pointee.read_index_corrupt == 0
    else { return }
    var spec = streamSpecLocked
    let (length, _) = steadyLengths(spec)
    let queued = timing.pointee.write_index - timing.pointee.read_index
    guard queued >= Int64(pa_usec_to_bytes(UInt64((length / 4 + 0.5) * 1e6), &spec)) else { return }
    sinkIsRelaxed = true
    setBufferAttributesLocked(stream, steadyBufferAttributes(spec, relaxed: true))
  }

  /// Back to the start-up buffer right behind a cork (lock held), so that the next start or seek is as quick
  /// as the first, and once the whole track is at the server, so that the drain is acknowledged as the end
  /// plays. The server keeps what it holds; it asks for nothing until that is below the target.
  func shrinkBufferLocked() {
    guard bufferIsSteady, let stream else { return }
    bufferIsSteady = false
    sinkIsRelaxed = false
    setBufferAttributesLocked(stream, startBufferAttributes(streamSpecLocked))
  }

  private func setBufferAttributesLocked(_ stream: OpaquePointer, _ attributes: pa_buffer_attr) {
    var attributes = attributes
    if let operation = pa_stream_set_buffer_attr(stream, &attributes, nil, nil) { pa_operation_unref(operation) }
  }

  /// The stream's buffer at the server in seconds (its `tlength` as the server last set it), nil without a
  /// ready stream: tests check when the steady buffer is in place.
  var serverBufferSeconds: Double? { serverAttributeSeconds(\.tlength) }

  /// How much the server asks for at a time (its `minreq`), in seconds, nil without a ready stream: tests check
  /// that the steady buffer lets the sink hold more once its queue is full.
  var serverRequestSeconds: Double? { serverAttributeSeconds(\.minreq) }

  /// One of the stream's buffer attributes as the server last set it, in seconds of the stream's audio.
  private func serverAttributeSeconds(_ attribute: KeyPath<pa_buffer_attr, UInt32>) -> Double? {
    locked {
      guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY,
        let attributes = pa_stream_get_buffer_attr(stream)
      else { return nil }
      var spec = streamSpecLocked
      return Double(pa_bytes_to_usec(UInt64(attributes.pointee[keyPath: attribute]), &spec)) / 1e6
    }
  }

  /// The sink latency the server configured for the stream at its last timing update, nil before one: tests
  /// check that the steady buffer lets the sink render in long blocks, and that a cork takes that back.
  var serverSinkLatencySeconds: Double? { serverTimingSeconds(\.configured_sink_usec) }

  /// How long the sink still takes to play what it already took from the server, at the last timing update
  /// (its `sink_usec`), nil before one: tests check that an end is confirmed with little of it left to play.
  var serverSinkDelaySeconds: Double? { serverTimingSeconds(\.sink_usec) }

  /// One of the durations of the stream's last timing update, in seconds.
  private func serverTimingSeconds(_ duration: KeyPath<pa_timing_info, pa_usec_t>) -> Double? {
    locked {
      guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY, let timing = pa_stream_get_timing_info(stream)
      else { return nil }
      return Double(timing.pointee[keyPath: duration]) / 1e6
    }
  }

  /// The sample format of the stream at the server, nil without a stream: tests check that 16-bit sources go
  /// out as 16-bit samples.
  var serverSampleFormat: DecodedSampleFormat? {
    locked {
      guard let stream, let spec = pa_stream_get_sample_spec(stream) else { return nil }
      return spec.pointee.format == PA_SAMPLE_S16LE ? .int16 : .float32
    }
  }

  /// Whether the connected server said it is PipeWire's pulse server.
  var serverIsPipeWire: Bool { locked { serverKind == .pipeWire } }

  /// Asks the connected server what it is (lock held); ``serverKind`` holds the answer.
  func identifyServerLocked(_ context: OpaquePointer) {
    let query = pa_context_get_server_info(
      context,
      { _, info, userdata in
        guard let info, let name = info.pointee.server_name else { return }
        let output = Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue()
        output.serverKind = String(cString: name).contains("PipeWire") ? .pipeWire : .pulseAudio
      }, Unmanaged.passUnretained(self).toOpaque())
    if let query { pa_operation_unref(query) }
  }
}

/// Which server answers the pulse protocol, as far as the buffer is concerned.
enum PulseServerKind {
  /// Not known yet.
  case unknown
  /// PulseAudio itself.
  case pulseAudio
  /// PipeWire's pulse server.
  case pipeWire
}
