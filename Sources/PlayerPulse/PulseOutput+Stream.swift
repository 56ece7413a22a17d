import CPulseAudio
import PlayerCore

// The playback stream: creating it, following its state, tearing it down.
extension PulseOutput {
  func createStreamLocked(
    for decoder: any AudioDecoder, at seconds: Double, volume: Int?,
    ready: @escaping (Result<Void, PlayerError>) -> Void
  ) {
    assertLocked()
    teardownStreamLocked()
    guard let context = connection.context, connection.isReady else {
      return ready(.failure(.outputLost(detail: "\(connection.serverName): not connected")))
    }
    let made: StreamSession
    do throws(PlayerError) {
      made = try StreamSession.make(on: context, timersOf: loop.pointer, for: decoder, ringFrames: buffer.ringFrames)
    } catch {
      return ready(.failure(error))
    }
    let (info, s, ring) = (decoder.info, made.stream, made.ring)
    let frame = Int64((seconds * Double(info.sampleRate)).rounded())
    session = made
    session?.created(at: seconds)
    let number = lineage.begin()
    self.volume.streamCreated(volume: volume)
    ring.invalidate()
    // A decoder that cannot start there starts at 0, and the open confirms that (``openAnew``).
    refillLocked(from: frame, orBackTo: 0, ring: ring, decoder: decoder) { [weak self] landing in
      guard let self, let reached = landing.frame, reached != frame, session?.ring === ring else { return }
      session?.moved(to: Double(reached) / Double(info.sampleRate))
    }

    let me = Unmanaged.passUnretained(self).toOpaque()
    // Ready once the server has made it and its volume is known; replaced while its volume was read, it is
    // not (what waited for it would otherwise go on with the next stream).
    session?.waiters.waitForReady { [self] result in
      guard case .success = result else { return ready(result) }
      self.volume.settleNewStreamLocked(s, channels: info.channels) { [self] in
        ready(session != nil && lineage.current == number ? .success(()) : .failure(.cancelled))
      }
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
      s, { _, userdata in Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue().underflowLocked() }, me)

    let level = self.volume.isExplicit ? volume ?? 100 : nil
    if !made.connect(to: configuration.sink, attributes: buffer.streamCreated(made.spec), volume: level) {
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
        delivery.announce(.lost(error))
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
  var deviceNameLocked: String? { session?.deviceName }

  /// The server ran out of audio (mainloop thread): an underrun, unless the whole track was written already.
  /// Running out then is the track's end, which plain PulseAudio and PipeWire report as an underflow too (after
  /// the drain's acknowledgement, or as the last frame plays), and which lost nothing.
  private func underflowLocked() {
    guard let session, !session.ring.drained, !session.endConfirmed else { return }
    delivery.announce(.underflow)
  }

  /// Reports the sink the server moved the stream to (mainloop thread).
  private func reportDeviceLocked() {
    guard let device = deviceNameLocked else { return }
    delivery.announce(.deviceChanged(device))
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
    guard let current = session else { return }
    current.silenceCallbacks()
    failPendingStreamOperationsLocked(.cancelled)
    guard var ended = session.take() else { return }
    ended.close()
    // An `open` (or a prepared stream) still waiting for the server to create this stream will not get it.
    ended.waiters.takeReady()?(.failure(.cancelled))
    let (resolvers, actions) = ended.waiters.takePrefill()
    if !resolvers.isEmpty { delivery.handOff { for resolver in resolvers { resolver.reject(.cancelled) } } }
    for action in actions { action(false) }
  }
}
