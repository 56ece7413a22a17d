import CPulseAudio

// The server's buffer for the stream: small while a start or a command may wait on it, large while audio flows.
extension PulseOutput {
  /// The buffer attributes asked for at the stream's creation and again at each cork: the server asks for more
  /// once a quarter of `targetLatency` is free. Left to itself, PulseAudio 16 asks for 20 ms at a time, which
  /// wakes this process and the server fifty times a second for nothing.
  func startBufferAttributes(_ spec: pa_sample_spec) -> pa_buffer_attr {
    var spec = spec
    let target = UInt64(configuration.targetLatency * 1e6)
    return pa_buffer_attr(
      maxlength: UInt32.max, tlength: UInt32(pa_usec_to_bytes(target, &spec)), prebuf: UInt32.max,
      minreq: UInt32(pa_usec_to_bytes(target / 4, &spec)), fragsize: UInt32.max)
  }

  /// The attributes once audio flows steadily: `steadyLatency` of buffer, asked for a quarter at a time, so the
  /// server wakes this process a few times a second at most. Playback after a flush still starts once
  /// `targetLatency` is in.
  private func steadyBufferAttributes(_ spec: pa_sample_spec) -> pa_buffer_attr {
    var spec = spec
    let steady = UInt64(configuration.steadyLatency * 1e6)
    return pa_buffer_attr(
      maxlength: UInt32.max, tlength: UInt32(pa_usec_to_bytes(steady, &spec)),
      prebuf: UInt32(pa_usec_to_bytes(UInt64(configuration.targetLatency * 1e6), &spec)),
      minreq: UInt32(pa_usec_to_bytes(steady / 4, &spec)), fragsize: UInt32.max)
  }

  private var streamSpecLocked: pa_sample_spec {
    pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(sampleRate), channels: UInt8(ringChannels))
  }

  /// Whether the steady buffer may be asked for: on PulseAudio, which rewinds its sink for a cork, a flush and
  /// a volume change, so those stay immediate whatever the buffer holds. Not on PipeWire's pulse server: there a
  /// larger request raises the quantum of the whole graph, and a cork waits for the quantum in progress.
  var mayUseSteadyBufferLocked: Bool {
    configuration.steadyLatency > configuration.targetLatency && serverKind == .pulseAudio
  }

  /// Audio has flowed steadily (the timing schedule reached its longest interval): asks for the steady buffer
  /// (lock held). Nothing waits for the answer.
  func enlargeBufferLocked() {
    guard !bufferIsSteady, running, mayUseSteadyBufferLocked, let stream, let ring, !ring.fillState.endOfTrack
    else { return }
    bufferIsSteady = true
    setBufferAttributesLocked(stream, steadyBufferAttributes(streamSpecLocked))
  }

  /// Back to the start-up buffer (lock held): right behind a cork, so that the next start or seek is as quick as
  /// the first (requests reach the server in order, so nothing asked before it waits for it); and once the
  /// decoder has reached the end of the last track, seconds before the drain. A server acknowledges a drain
  /// once the audio is in its sink, whose latency grows with the buffer: with the steady buffer, the end of a
  /// 30 s track was confirmed 3.4 s before its audio ended on a plain PulseAudio null sink.
  func shrinkBufferLocked() {
    guard bufferIsSteady, let stream else { return }
    bufferIsSteady = false
    setBufferAttributesLocked(stream, startBufferAttributes(streamSpecLocked))
  }

  private func setBufferAttributesLocked(_ stream: OpaquePointer, _ attributes: pa_buffer_attr) {
    var attributes = attributes
    if let operation = pa_stream_set_buffer_attr(stream, &attributes, nil, nil) { pa_operation_unref(operation) }
  }

  /// The stream's buffer at the server in seconds (its `tlength`, as the server last set it), or nil without a
  /// stream: tests check when the steady buffer is in place.
  var serverBufferSeconds: Double? {
    locked {
      guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY,
        let attributes = pa_stream_get_buffer_attr(stream)
      else { return nil }
      var spec = streamSpecLocked
      return Double(pa_bytes_to_usec(UInt64(attributes.pointee.tlength), &spec)) / 1e6
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
