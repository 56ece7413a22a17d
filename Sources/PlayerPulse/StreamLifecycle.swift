import CPulseAudio
import PlayerCore

/// The current stream's life at the server: creating it, following what libpulse reports of it (its state, its
/// write requests, a move to another sink, timing updates, underflows) and tearing it down. The stream's
/// callbacks come here. Touched only with the mainloop lock held (or on the mainloop thread); lock-confined, hence
/// `@unchecked Sendable`.
final class StreamLifecycle: @unchecked Sendable {
  /// The loop, the current stream, the connection, the buffer, the requests and the delivery.
  private let parts: OutputParts
  private let volume: VolumeControl
  private let feed: StreamFeed
  private let timing: StreamTiming
  /// The sink streams are made for, or nil for the server's default.
  private let sink: String?

  /// The life of `current`'s stream on `connection`'s context, made for `sink`; the other parts carry out
  /// what its callbacks report.
  init(parts: OutputParts, volume: VolumeControl, feed: StreamFeed, timing: StreamTiming, sink: String?) {
    self.parts = parts
    self.volume = volume
    self.feed = feed
    self.timing = timing
    self.sink = sink
  }

  /// Replaces the stream with a new, corked one for `decoder` at `seconds` and `volume` (nil: the server's), and
  /// starts filling its ring; `ready` hears once the server made it and its volume is known, or why not.
  func createLocked(
    for decoder: any AudioDecoder, at seconds: Double, volume: Int?,
    ready: @escaping (Result<Void, PlayerError>) -> Void
  ) {
    parts.loop.assertLocked(function: #function)
    teardownLocked()
    guard let context = parts.connection.context, parts.connection.isReady else {
      return ready(.failure(.outputLost(detail: "\(parts.connection.serverName): not connected")))
    }
    let made: StreamSession
    do throws(PlayerError) {
      made = try StreamSession.make(
        on: context, timersOf: parts.loop.pointer, for: decoder, ringFrames: parts.buffer.ringFrames)
    } catch {
      return ready(.failure(error))
    }
    let (info, s, ring) = (decoder.info, made.stream, made.ring)
    let frame = Int64((seconds * Double(info.sampleRate)).rounded())
    parts.current.session = made
    parts.current.session?.created(at: seconds)
    let number = parts.current.lineage.begin()
    self.volume.streamCreated(volume: volume)
    ring.invalidate()
    // A decoder that cannot start there starts at 0, and the open confirms that.
    feed.refillLocked(from: frame, orBackTo: 0, ring: ring, decoder: decoder) { [weak self] landing in
      guard let self, let reached = landing.frame, reached != frame, parts.current.owns(ring) else { return }
      parts.current.session?.moved(to: Double(reached) / Double(info.sampleRate))
    }

    // Ready once the server has made it and its volume is known; replaced while its volume was read, it is
    // not (what waited for it would otherwise go on with the next stream).
    parts.current.session?.waiters.waitForReady { [self] result in
      guard case .success = result else { return ready(result) }
      self.volume.settleNewStreamLocked(s, channels: info.channels) { [self] in
        ready(
          parts.current.session != nil && parts.current.lineage.current == number ? .success(()) : .failure(.cancelled))
      }
    }
    hearCallbacks(of: s)

    let level = self.volume.isExplicit ? volume ?? 100 : nil
    if !made.connect(to: sink, attributes: parts.buffer.streamCreated(made.spec), volume: level) {
      _ = parts.current.session?.waiters.takeReady()
      teardownLocked()
      ready(.failure(.outputFailed(operation: "open", detail: parts.connection.lastError())))
    }
  }

  /// Sets `stream`'s callbacks to this part; ``StreamSession/silenceCallbacks()`` clears them before it goes.
  /// Unretained: the output holds this part while the stream exists, and tears the stream down before it goes.
  private func hearCallbacks(of stream: OpaquePointer) {
    let me = Unmanaged.passUnretained(self).toOpaque()
    pa_stream_set_state_callback(stream, { _, userdata in StreamLifecycle.of(userdata).stateChangedLocked() }, me)
    pa_stream_set_write_callback(stream, { _, _, userdata in StreamLifecycle.of(userdata).feed.pumpLocked() }, me)
    pa_stream_set_moved_callback(stream, { _, userdata in StreamLifecycle.of(userdata).reportDeviceLocked() }, me)
    pa_stream_set_latency_update_callback(
      stream, { _, userdata in StreamLifecycle.of(userdata).timing.updatedLocked() }, me)
    pa_stream_set_underflow_callback(stream, { _, userdata in StreamLifecycle.of(userdata).underflowLocked() }, me)
  }

  /// The part a callback's userdata names.
  private static func of(_ userdata: UnsafeMutableRawPointer?) -> StreamLifecycle {
    Unmanaged<StreamLifecycle>.fromOpaque(userdata!).takeUnretainedValue()
  }

  private func stateChangedLocked() {
    guard let stream = parts.current.session?.stream else { return }
    switch pa_stream_get_state(stream) {
    case PA_STREAM_READY:
      timing.requestLocked()
      parts.current.session?.waiters.takeReady()?(.success(()))
    case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
      let detail = parts.connection.lastError()
      if let ready = parts.current.session?.waiters.takeReady() {
        let error = openFailureLocked(detail: detail)
        teardownLocked()
        ready(.failure(error))
      } else if parts.connection.isReady {
        // The server killed the stream (its sink went away, for example): the track cannot continue.
        let error = PlayerError.outputLost(detail: "the stream was closed by the server: \(detail)")
        failPendingOperationsLocked(error)
        teardownLocked()
        parts.delivery.announce(.lost(error))
      }
    default:
      break
    }
  }

  /// Why the server refused to make the stream: a sink named in the configuration that it does not have is the
  /// output being unavailable, named as such; anything else is the server's reason.
  private func openFailureLocked(detail: String) -> PlayerError {
    if let sink, let context = parts.connection.context, pa_context_errno(context) == Int32(PA_ERR_NOENTITY.rawValue) {
      return .sinkNotFound(server: parts.connection.serverName, sink: sink)
    }
    return .outputFailed(operation: "open", detail: detail)
  }

  /// The server ran out of audio (mainloop thread): an underrun, unless the whole track was written already.
  /// Running out then is the track's end, which plain PulseAudio and PipeWire report as an underflow too (after
  /// the drain's acknowledgement, or as the last frame plays), and which lost nothing.
  private func underflowLocked() {
    guard let session = parts.current.session, !session.ring.drained, !session.endConfirmed else { return }
    parts.delivery.announce(.underflow)
  }

  /// Reports the sink the server moved the stream to (mainloop thread).
  private func reportDeviceLocked() {
    guard let device = parts.current.session?.deviceName else { return }
    parts.delivery.announce(.deviceChanged(device))
  }

  /// Fails what waits for the stream: its operations (not a volume change, which is the context's) and the
  /// pauses waiting for a timing update.
  private func failPendingOperationsLocked(_ error: PlayerError) {
    parts.requests.fail(with: error) { $0.name != "volume" }
    // Pauses whose cork was acknowledged wait for no operation of theirs, only for the next timing update.
    for cork in parts.current.session?.waiters.takeTiming() ?? [] { cork.fail(error) }
  }

  /// Disconnects the stream and forgets everything about it; what waited for it is cancelled.
  func teardownLocked() {
    parts.loop.assertLocked(function: #function)
    guard let session = parts.current.session else { return }
    session.silenceCallbacks()
    failPendingOperationsLocked(.cancelled)
    guard var ended = parts.current.session.take() else { return }
    ended.close()
    // An `open` (or a prepared stream) still waiting for the server to create this stream will not get it.
    ended.waiters.takeReady()?(.failure(.cancelled))
    let (resolvers, actions) = ended.waiters.takePrefill()
    if !resolvers.isEmpty { parts.delivery.handOff { for resolver in resolvers { resolver.reject(.cancelled) } } }
    for action in actions { action(false) }
  }
}
