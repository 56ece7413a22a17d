import CPulseAudio
import Futures
import PlayerCore

// The stream's volume: setting it, reading it back, and following changes other programs make.
extension PulseOutput {
  /// Asks the server to report changes of sink inputs, so that a volume set by another program (pavucontrol,
  /// `pactl set-sink-input-volume`) arrives as a confirmed `volumeChanged` event.
  func subscribeToVolumeChangesLocked(_ context: OpaquePointer) {
    pa_context_set_subscribe_callback(
      context,
      { _, event, index, userdata in
        let output = Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue()
        output.sinkInputChangedLocked(event: event, index: index)
      }, Unmanaged.passUnretained(self).toOpaque())
    if let operation = pa_context_subscribe(context, PA_SUBSCRIPTION_MASK_SINK_INPUT, nil, nil) {
      pa_operation_unref(operation)
    }
  }

  /// A sink input changed (mainloop thread): when it is this output's stream, read its volume.
  private func sinkInputChangedLocked(event: pa_subscription_event_type_t, index: UInt32) {
    let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
    let kind = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
    guard facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue, kind == PA_SUBSCRIPTION_EVENT_CHANGE.rawValue,
      let context = connection.context, let stream = session?.stream, pa_stream_get_state(stream) == PA_STREAM_READY,
      pa_stream_get_index(stream) == index
    else { return }
    let query = pa_context_get_sink_input_info(
      context, index,
      { _, info, _, userdata in
        guard let info else { return }
        let output = Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue()
        var volume = info.pointee.volume
        output.sinkInputVolumeReadLocked(index: info.pointee.index, level: pa_cvolume_avg(&volume))
        output.sinkInputMuteReadLocked(index: info.pointee.index, muted: info.pointee.mute != 0)
      }, Unmanaged.passUnretained(self).toOpaque())
    if let query { pa_operation_unref(query) }
  }

  /// The server's volume of a sink input (mainloop thread): a change that splay did not make is an event, unless
  /// it is a session manager's restore of a new stream that overrides an explicit volume: that is undone.
  private func sinkInputVolumeReadLocked(index: UInt32, level: pa_volume_t) {
    guard let stream = session?.stream, pa_stream_get_index(stream) == index else { return }
    switch volume.reported(level: Self.percent(level), at: Self.now()) {
    case .ignore: break
    case .reassert(let explicit): applyVolumeLocked(explicit, to: stream) { _ in }
    case .publish(let percent): announceLocked(.volumeChanged(percent))
    }
  }

  /// The server's mute flag of a sink input (mainloop thread): a change splay did not make is an event, unless a
  /// session manager restores a saved flag onto a new stream: splay's flag is set again.
  private func sinkInputMuteReadLocked(index: UInt32, muted: Bool) {
    guard let stream = session?.stream, pa_stream_get_index(stream) == index else { return }
    switch volume.reported(muted: muted, at: Self.now()) {
    case .ignore: break
    case .reassert(let muted): applyMuteLocked(muted, to: stream) { _ in }
    case .publish(let muted): announceLocked(.muteChanged(muted))
    }
  }

  /// Sets the stream's mute flag at the server; with no stream, takes it for the next one.
  public func setMute(_ muted: Bool) -> Future<Bool, PlayerError> {
    let (future, resolver) = Future<Bool, PlayerError>.pending()
    locked {
      guard connection.context != nil, connection.isReady, let stream = session?.stream,
        pa_stream_get_state(stream) == PA_STREAM_READY
      else {
        volume.set(muted: muted)
        handOff { resolver.resolve(muted) }
        return
      }
      applyMuteLocked(muted, to: stream) { [self] result in
        let outcome = result.map { muted }
        handOff {
          // Set after the command gave up waiting: the flag changed all the same, so it is an event.
          if !resolver.settle(with: Outcome(outcome)), case .success = outcome { self.report(.muteChanged(muted)) }
        }
      }
    }
    return future
  }

  /// Sets the stream's mute flag at the server (lock held); `done` gets the server's answer.
  func applyMuteLocked(_ muted: Bool, to stream: OpaquePointer, _ done: @escaping (Result<Void, PlayerError>) -> Void) {
    guard let context = connection.context else {
      return done(.failure(.outputLost(detail: "\(connection.serverName): not connected")))
    }
    let index = pa_stream_get_index(stream)
    issueLocked(
      "mute",
      start: { ticket in
        pa_context_set_sink_input_mute(context, index, muted ? 1 : 0, PulseOperation.contextCallback, ticket)
      },
      completion: { [self] ok in
        guard ok else { return done(.failure(.outputFailed(operation: "mute", detail: connection.lastError()))) }
        volume.set(muted: muted)
        done(.success(()))
      }, failure: { error in done(.failure(error)) })
  }

  /// The stream's volume and mute flag as last read from the server or acknowledged by it.
  public var serverVolume: (level: Int, muted: Bool)? {
    locked { session == nil ? nil : (volume.level, volume.muted) }
  }

  static func percent(_ volume: pa_volume_t) -> Int {
    Int((Double(volume) * 100 / Double(PA_VOLUME_NORM)).rounded())
  }

  /// Sets the stream's volume at the server (lock held); `done` gets the server's answer.
  func applyVolumeLocked(
    _ level: Int, to stream: OpaquePointer, explicit: Bool = false,
    _ done: @escaping (Result<Void, PlayerError>) -> Void
  ) {
    guard let context = connection.context else {
      return done(.failure(.outputLost(detail: "\(connection.serverName): not connected")))
    }
    var levels = pa_cvolume()
    pa_cvolume_set(&levels, UInt32(max(1, session?.ring.channels ?? 2)), Self.paVolume(level))
    let index = pa_stream_get_index(stream)
    issueLocked(
      "volume",
      start: { ticket in
        pa_context_set_sink_input_volume(context, index, &levels, PulseOperation.contextCallback, ticket)
      },
      completion: { [self] ok in
        guard ok else { return done(.failure(.outputFailed(operation: "volume", detail: connection.lastError()))) }
        volume.acknowledged(level: level, explicit: explicit)
        done(.success(()))
      }, failure: { error in done(.failure(error)) })
  }

  /// Reads the new stream's volume at the server, and sets the explicit one when that differs (lock held): a
  /// server may ignore the volume a stream is created with (PipeWire 0.3.65 plays it at 100 %), or restore a
  /// saved one. `done` runs once the stream's volume is known, or could not be read.
  func settleNewStreamVolumeLocked(_ stream: OpaquePointer, _ done: @escaping () -> Void) {
    volume.streamReady(at: Self.now())
    guard let context = connection.context else { return done() }
    let index = pa_stream_get_index(stream)
    final class Reading { var volume: pa_volume_t? }
    let reading = Reading()
    issueLocked(
      "volume (read)",
      start: { ticket in pa_context_get_sink_input_info(context, index, PulseOperation.sinkInputCallback, ticket) },
      completion: { [self] _ in
        guard let level = reading.volume, session?.stream == stream else { return done() }
        let fix = volume.newStreamRead(level: Self.percent(level))
        // A muted player's next stream is muted too, before its first audio.
        let mute = { [self] in fix.mute ? applyMuteLocked(true, to: stream) { _ in done() } : done() }
        guard let explicit = fix.level else { return mute() }
        applyVolumeLocked(explicit, to: stream) { _ in mute() }
      }, failure: { _ in done() }, volumeRead: { reading.volume = $0 })
  }

  static func paVolume(_ percent: Int) -> pa_volume_t {
    pa_volume_t(Double(PA_VOLUME_NORM) * Double(min(max(percent, 0), 100)) / 100)
  }
}
