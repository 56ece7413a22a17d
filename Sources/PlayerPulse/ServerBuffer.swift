import CPulseAudio
import PlayerCore

/// The stream's buffer at the server: small while a start or a command may wait on it, large while audio flows.
/// ``BufferPolicy`` decides; this part sets what it decides on the stream it is handed, and asks the server what
/// it is (the steady buffer is for PulseAudio, not PipeWire). Touched only with the mainloop lock held.
final class ServerBuffer {
  /// What the buffer is and is to be.
  private var policy: BufferPolicy

  /// A part for these buffer lengths in seconds (``PulseOutput/Configuration``).
  init(targetLatency: Double, steadyLatency: Double) {
    policy = BufferPolicy(targetLatency: targetLatency, steadyLatency: steadyLatency)
  }

  /// Whether the connected server said it is PipeWire's pulse server.
  var serverIsPipeWire: Bool { policy.server == .pipeWire }

  /// Asks the server on `context` what it is; the policy takes the answer.
  func identify(_ context: OpaquePointer) {
    ServerInfoQuery.run(context) { [weak self] server in
      guard let name = server.name else { return }
      self?.policy.identified(name.contains("PipeWire") ? .pipeWire : .pulseAudio)
    }
  }

  /// The connection went: the next one may be to another server.
  func disconnected() { policy.disconnected() }

  /// The attributes a new stream of `spec` is created with: the start-up buffer.
  func streamCreated(_ spec: pa_sample_spec) -> pa_buffer_attr {
    policy.streamCreated()
    return Self.pulseAttributes(policy.startAttributes, spec)
  }

  /// How many frames the sample ring of a new stream of `spec` holds (at least 4096).
  func ringFrames(_ spec: pa_sample_spec) -> Int {
    max(Int(Double(spec.rate) * policy.ringSeconds(bytesPerSecond: Self.bytesPerSecond(spec))), 4096)
  }

  /// How a fill of a ring at `sampleRate` goes now (``BufferPolicy/corkedFillFrames(sampleRate:)``,
  /// ``BufferPolicy/handsOverEarly(running:)``). With the steady buffer the server holds seconds: an early
  /// hand-over would only wake the loop thread once more for the same request.
  func fillPlan(sampleRate: Int, running: Bool) -> FillPlan {
    FillPlan(
      corkedFrames: policy.corkedFillFrames(sampleRate: sampleRate),
      handsOverEarly: policy.handsOverEarly(running: running))
  }

  /// The wait before the next timing request in µs (``BufferPolicy/nextTimingWait(restart:)``).
  func nextTimingWait(restart: Bool) -> UInt64 { policy.nextTimingWait(restart: restart) }

  /// A timing request is due: after a while of audio flowing with nothing asked, the steady buffer.
  func timingDue(_ session: StreamSession) {
    apply(
      policy.timingDue(flowing: session.audioFlows, bytesPerSecond: Self.bytesPerSecond(session.spec)), to: session)
  }

  /// A timing update arrived: the sink may hold more once the steady buffer's queue is full.
  func timingUpdated(_ session: StreamSession) {
    guard policy.isSteady, let timing = pa_stream_get_timing_info(session.stream),
      timing.pointee.write_index_corrupt == 0, timing.pointee.read_index_corrupt == 0
    else { return }
    var spec = session.spec
    let queuedBytes = max(timing.pointee.write_index - timing.pointee.read_index, 0)
    let queued = pa_bytes_to_usec(UInt64(queuedBytes), &spec)
    apply(
      policy.timingUpdated(
        queued: queued, flowing: session.audioFlows, bytesPerSecond: Self.bytesPerSecond(session.spec)),
      to: session)
  }

  /// Back to the start-up buffer: behind a cork, and once the whole track is at the server.
  func shrink(_ session: StreamSession?) {
    let attributes = policy.shrink()
    guard let session else { return }
    apply(attributes, to: session)
  }

  /// Sets what the policy decided, if anything.
  private func apply(_ attributes: BufferPolicy.Attributes?, to session: StreamSession) {
    guard let attributes else { return }
    var pulse = Self.pulseAttributes(attributes, session.spec)
    if let operation = pa_stream_set_buffer_attr(session.stream, &pulse, nil, nil) { pa_operation_unref(operation) }
  }

  /// The server's attributes for `attributes` of audio of `spec`.
  private static func pulseAttributes(_ attributes: BufferPolicy.Attributes, _ spec: pa_sample_spec) -> pa_buffer_attr {
    var spec = spec
    return pa_buffer_attr(
      maxlength: UInt32.max, tlength: UInt32(pa_usec_to_bytes(attributes.length, &spec)),
      prebuf: attributes.prebuffer.map { UInt32(pa_usec_to_bytes($0, &spec)) } ?? UInt32.max,
      minreq: UInt32(pa_usec_to_bytes(attributes.request, &spec)), fragsize: UInt32.max)
  }

  /// Bytes a second of audio of `spec`.
  private static func bytesPerSecond(_ spec: pa_sample_spec) -> Double {
    var spec = spec
    return Double(pa_bytes_per_second(&spec))
  }
}
