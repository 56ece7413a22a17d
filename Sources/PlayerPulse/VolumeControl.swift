import CPulseAudio
import Futures
import PlayerCore

/// The stream's volume and mute flag at the server: setting them, reading a new stream's back, and following
/// the changes other programs make (pavucontrol, `pactl set-sink-input-volume`), which arrive as confirmed
/// events. ``StreamVolume`` decides; this part carries it out with libpulse on the output's context. Touched
/// only with the mainloop lock held.
final class VolumeControl {
  /// What splay set, what the server reported, and whether a report is a restore to undo.
  private(set) var state = StreamVolume()
  private let connection: PulseConnection
  private let requests: PulseRequests
  private let delivery: OutputDelivery
  /// The output's stream while one is ready for volume changes, with its channel count.
  var currentStream: () -> (stream: OpaquePointer, channels: Int)? = { nil }

  /// A part that works on `connection`'s context, issues through `requests` and reports through `delivery`.
  init(connection: PulseConnection, requests: PulseRequests, delivery: OutputDelivery) {
    self.connection = connection
    self.requests = requests
    self.delivery = delivery
  }

  /// The level in percent, as last set or reported.
  var level: Int { state.level }
  /// The mute flag, as last set or reported.
  var muted: Bool { state.muted }
  /// Whether a level was asked for explicitly (a new stream is created with it; else the server chooses).
  var isExplicit: Bool { state.explicit != nil }

  /// A new stream is created with `volume` (nil: the server chooses).
  func streamCreated(volume: Int?) { state.streamCreated(volume: volume) }

  // MARK: - Setting

  /// Sets the level; with no stream, takes it for the next. `done` gets the level once the server agreed (or at
  /// once without a stream), and whether it came too late for the caller.
  func setLocked(_ percent: Int, _ resolver: Future<Int, PlayerError>.Resolver) {
    let level = min(max(percent, 0), 100)
    guard connection.isReady, let (stream, channels) = currentStream() else {
      // No stream: the level is applied when the next stream is created, with that stream's acknowledgement.
      state.requestedWithoutStream(level)
      delivery.handOff { resolver.resolve(level) }
      return
    }
    applyLocked(level, to: stream, channels: channels, explicit: true) { [delivery] result in
      let outcome = result.map { level }
      delivery.handOff {
        // Set after the command gave up waiting: the level changed all the same, so it is an event.
        if !resolver.settle(with: Outcome(outcome)), case .success = outcome { delivery.report(.volumeChanged(level)) }
      }
    }
  }

  /// Sets the mute flag; with no stream, takes it for the next.
  func setMuteLocked(_ muted: Bool, _ resolver: Future<Bool, PlayerError>.Resolver) {
    guard connection.isReady, let (stream, _) = currentStream() else {
      state.set(muted: muted)
      delivery.handOff { resolver.resolve(muted) }
      return
    }
    applyMuteLocked(muted, to: stream) { [delivery] result in
      let outcome = result.map { muted }
      delivery.handOff {
        // Set after the command gave up waiting: the flag changed all the same, so it is an event.
        if !resolver.settle(with: Outcome(outcome)), case .success = outcome { delivery.report(.muteChanged(muted)) }
      }
    }
  }

  /// Sets the stream's mute flag at the server; `done` gets the server's answer.
  private func applyMuteLocked(
    _ muted: Bool, to stream: OpaquePointer, _ done: @escaping (Result<Void, PlayerError>) -> Void
  ) {
    guard let context = connection.context else {
      return done(.failure(.outputLost(detail: "\(connection.serverName): not connected")))
    }
    let index = pa_stream_get_index(stream)
    requests.issue(
      "mute",
      start: { ticket in
        pa_context_set_sink_input_mute(context, index, muted ? 1 : 0, PulseOperation.contextCallback, ticket)
      },
      completion: { [self] ok in
        guard ok else { return done(.failure(.outputFailed(operation: "mute", detail: connection.lastError()))) }
        state.set(muted: muted)
        done(.success(()))
      }, failure: { error in done(.failure(error)) })
  }

  /// Sets the stream's level at the server; `done` gets the server's answer.
  private func applyLocked(
    _ level: Int, to stream: OpaquePointer, channels: Int, explicit: Bool = false,
    _ done: @escaping (Result<Void, PlayerError>) -> Void
  ) {
    guard let context = connection.context else {
      return done(.failure(.outputLost(detail: "\(connection.serverName): not connected")))
    }
    var levels = pa_cvolume()
    pa_cvolume_set(&levels, UInt32(max(1, channels)), Self.paVolume(level))
    let index = pa_stream_get_index(stream)
    requests.issue(
      "volume",
      start: { ticket in
        pa_context_set_sink_input_volume(context, index, &levels, PulseOperation.contextCallback, ticket)
      },
      completion: { [self] ok in
        guard ok else { return done(.failure(.outputFailed(operation: "volume", detail: connection.lastError()))) }
        state.acknowledged(level: level, explicit: explicit)
        done(.success(()))
      }, failure: { error in done(.failure(error)) })
  }

  /// Reads the new stream's level at the server, and sets the explicit one when that differs: a server may
  /// ignore the volume a stream is created with (PipeWire 0.3.65 plays it at 100 %), or restore a saved one.
  /// `done` runs once the stream's volume is known, or could not be read.
  func settleNewStreamLocked(_ stream: OpaquePointer, channels: Int, _ done: @escaping () -> Void) {
    state.streamReady(at: PulseOutput.now())
    guard let context = connection.context else { return done() }
    let index = pa_stream_get_index(stream)
    final class Reading { var volume: pa_volume_t? }
    let reading = Reading()
    requests.issue(
      "volume (read)",
      start: { ticket in pa_context_get_sink_input_info(context, index, PulseOperation.sinkInputCallback, ticket) },
      completion: { [self] _ in
        guard let level = reading.volume, currentStream()?.stream == stream else { return done() }
        let fix = state.newStreamRead(level: Self.percent(level))
        // A muted player's next stream is muted too, before its first audio.
        let mute = { [self] in fix.mute ? applyMuteLocked(true, to: stream) { _ in done() } : done() }
        guard let explicit = fix.level else { return mute() }
        applyLocked(explicit, to: stream, channels: channels) { _ in mute() }
      }, failure: { _ in done() }, volumeRead: { reading.volume = $0 })
  }

  // MARK: - Following other programs

  /// Asks the server to report changes of sink inputs, so that a level set by another program arrives as a
  /// confirmed `volumeChanged` event. The connection clears the callback when it closes the context.
  func subscribeLocked(_ context: OpaquePointer) {
    pa_context_set_subscribe_callback(
      context,
      { _, event, index, userdata in
        Unmanaged<VolumeControl>.fromOpaque(userdata!).takeUnretainedValue().sinkInputChangedLocked(
          event: event, index: index)
      }, Unmanaged.passUnretained(self).toOpaque())
    if let operation = pa_context_subscribe(context, PA_SUBSCRIPTION_MASK_SINK_INPUT, nil, nil) {
      pa_operation_unref(operation)
    }
  }

  /// A sink input changed (mainloop thread): when it is this output's stream, read its volume and mute flag.
  private func sinkInputChangedLocked(event: pa_subscription_event_type_t, index: UInt32) {
    let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
    let kind = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
    guard facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue, kind == PA_SUBSCRIPTION_EVENT_CHANGE.rawValue,
      let context = connection.context, let (stream, _) = currentStream(), pa_stream_get_index(stream) == index
    else { return }
    let query = pa_context_get_sink_input_info(
      context, index,
      { _, info, _, userdata in
        guard let info else { return }
        let control = Unmanaged<VolumeControl>.fromOpaque(userdata!).takeUnretainedValue()
        var volume = info.pointee.volume
        control.reportedLocked(index: info.pointee.index, level: pa_cvolume_avg(&volume), muted: info.pointee.mute != 0)
      }, Unmanaged.passUnretained(self).toOpaque())
    if let query { pa_operation_unref(query) }
  }

  /// The server's level and mute flag of a sink input (mainloop thread): a change that splay did not make is an
  /// event, unless it is a session manager's restore onto a new stream, which is undone.
  private func reportedLocked(index: UInt32, level: pa_volume_t, muted: Bool) {
    guard let (stream, channels) = currentStream(), pa_stream_get_index(stream) == index else { return }
    switch state.reported(level: Self.percent(level), at: PulseOutput.now()) {
    case .ignore: break
    case .reassert(let explicit): applyLocked(explicit, to: stream, channels: channels) { _ in }
    case .publish(let percent): delivery.announce(.volumeChanged(percent))
    }
    switch state.reported(muted: muted, at: PulseOutput.now()) {
    case .ignore: break
    case .reassert(let muted): applyMuteLocked(muted, to: stream) { _ in }
    case .publish(let muted): delivery.announce(.muteChanged(muted))
    }
  }

  // MARK: - Scales

  /// A libpulse volume as `pactl` percentages.
  static func percent(_ volume: pa_volume_t) -> Int {
    Int((Double(volume) * 100 / Double(PA_VOLUME_NORM)).rounded())
  }

  /// A percentage as a libpulse volume.
  static func paVolume(_ percent: Int) -> pa_volume_t {
    pa_volume_t(Double(PA_VOLUME_NORM) * Double(min(max(percent, 0), 100)) / 100)
  }
}
