import CPulseAudio
import PlayerCore

/// What the server says of a ready stream at one moment: its buffer attributes as it last set them, its last
/// timing update, its sample format. Tests read it (``PulseOutput/serverReadings``) to see the buffer policy at
/// work: the steady buffer in place, the sink relaxed, a cork taking it back, 16-bit audio sent as such.
struct ServerReadings {
  /// The stream's buffer (`tlength`) in seconds.
  let bufferSeconds: Double
  /// How much the server asks for at a time (`minreq`), in seconds.
  let requestSeconds: Double
  /// The sink latency the server configured for the stream, nil before a timing update.
  let sinkLatencySeconds: Double?
  /// How long the sink still takes to play what it took from the server (`sink_usec`), nil before an update.
  let sinkDelaySeconds: Double?
  /// The stream's sample format at the server.
  let sampleFormat: DecodedSampleFormat

  /// Reads `stream` (lock held); nil unless it is ready.
  init?(_ stream: OpaquePointer) {
    guard pa_stream_get_state(stream) == PA_STREAM_READY, let attributes = pa_stream_get_buffer_attr(stream),
      let spec = pa_stream_get_sample_spec(stream)
    else { return nil }
    bufferSeconds = Double(pa_bytes_to_usec(UInt64(attributes.pointee.tlength), spec)) / 1e6
    requestSeconds = Double(pa_bytes_to_usec(UInt64(attributes.pointee.minreq), spec)) / 1e6
    let timing = pa_stream_get_timing_info(stream)?.pointee
    sinkLatencySeconds = timing.map { Double($0.configured_sink_usec) / 1e6 }
    sinkDelaySeconds = timing.map { Double($0.sink_usec) / 1e6 }
    sampleFormat = spec.pointee.format == PA_SAMPLE_S16LE ? .int16 : .float32
  }
}
