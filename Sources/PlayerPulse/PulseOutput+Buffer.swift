import CPulseAudio
import PlayerCore

// The stream's buffer at the server: small while a start or a command may wait on it, large while audio flows.
extension PulseOutput {
  /// The server's attributes for `attributes` of audio of `spec`.
  func pulseAttributes(_ attributes: BufferPolicy.Attributes, _ spec: pa_sample_spec) -> pa_buffer_attr {
    var spec = spec
    return pa_buffer_attr(
      maxlength: UInt32.max, tlength: UInt32(pa_usec_to_bytes(attributes.length, &spec)),
      prebuf: attributes.prebuffer.map { UInt32(pa_usec_to_bytes($0, &spec)) } ?? UInt32.max,
      minreq: UInt32(pa_usec_to_bytes(attributes.request, &spec)), fragsize: UInt32.max)
  }

  /// Bytes a second of audio of `spec`.
  static func bytesPerSecond(_ spec: pa_sample_spec) -> Double {
    var spec = spec
    return Double(pa_bytes_per_second(&spec))
  }

  /// The open stream's sample spec (32-bit float stereo at the last rate, without a stream).
  var streamSpecLocked: pa_sample_spec {
    pa_sample_spec(
      format: Self.pulseFormat(session?.sampleFormat ?? .float32), rate: UInt32(sampleRate),
      channels: UInt8(session?.ring.channels ?? 2))
  }

  /// Audio flows with nothing in the way of a larger buffer (lock held): uncorked, not draining, and the track
  /// not all decoded yet.
  var audioFlowsLocked: Bool {
    guard let session else { return false }
    return session.running && session.draining == nil && !session.ring.drained
  }

  /// Sets what the buffer policy decided, if anything (lock held).
  func applyBufferLocked(_ attributes: BufferPolicy.Attributes?) {
    guard let attributes, let stream = session?.stream else { return }
    var pulse = pulseAttributes(attributes, streamSpecLocked)
    if let operation = pa_stream_set_buffer_attr(stream, &pulse, nil, nil) { pa_operation_unref(operation) }
  }

  /// A timing update arrived: the policy may let the sink hold more once the steady buffer's queue is full.
  func relaxSinkLatencyLocked() {
    guard buffer.isSteady, let stream = session?.stream, let timing = pa_stream_get_timing_info(stream),
      timing.pointee.write_index_corrupt == 0, timing.pointee.read_index_corrupt == 0
    else { return }
    var spec = streamSpecLocked
    let queuedBytes = max(timing.pointee.write_index - timing.pointee.read_index, 0)
    let queued = pa_bytes_to_usec(UInt64(queuedBytes), &spec)
    applyBufferLocked(
      buffer.timingUpdated(queued: queued, flowing: audioFlowsLocked, bytesPerSecond: Self.bytesPerSecond(spec)))
  }

  /// Back to the start-up buffer (lock held): behind a cork, and once the whole track is at the server.
  func shrinkBufferLocked() {
    applyBufferLocked(buffer.shrink())
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
      guard let stream = session?.stream, pa_stream_get_state(stream) == PA_STREAM_READY,
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
      guard let stream = session?.stream, pa_stream_get_state(stream) == PA_STREAM_READY,
        let timing = pa_stream_get_timing_info(stream)
      else { return nil }
      return Double(timing.pointee[keyPath: duration]) / 1e6
    }
  }

  /// The sample format of the stream at the server, nil without a stream: tests check that 16-bit sources go
  /// out as 16-bit samples.
  var serverSampleFormat: DecodedSampleFormat? {
    locked {
      guard let stream = session?.stream, let spec = pa_stream_get_sample_spec(stream) else { return nil }
      return spec.pointee.format == PA_SAMPLE_S16LE ? .int16 : .float32
    }
  }

  /// Whether the connected server said it is PipeWire's pulse server.
  var serverIsPipeWire: Bool { locked { buffer.server == .pipeWire } }

  /// Asks the connected server what it is (lock held); the buffer policy takes the answer.
  func identifyServerLocked(_ context: OpaquePointer) {
    let query = pa_context_get_server_info(
      context,
      { _, info, userdata in
        guard let info, let name = info.pointee.server_name else { return }
        let output = Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue()
        output.buffer.identified(String(cString: name).contains("PipeWire") ? .pipeWire : .pulseAudio)
      }, Unmanaged.passUnretained(self).toOpaque())
    if let query { pa_operation_unref(query) }
  }
}
