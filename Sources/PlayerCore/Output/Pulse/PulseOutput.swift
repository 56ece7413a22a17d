import CPulseAudio
import Dispatch
import Futures
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Plays through a PulseAudio (or PipeWire-pulse) server with libpulse's asynchronous API; every future it
/// returns resolves on the server's acknowledgement of the operation.
///
/// Threads: one `pa_threaded_mainloop` runs libpulse. Its callbacks copy audio and record acknowledgements;
/// they never decode, wait or run user code — futures are settled from the consumer's executor
/// (``deliver(on:)``, the controller's) or else from `settleQueue`, so a continuation can call straight back
/// into this output. Decoding runs on `decodeQueue`, into a ``SampleRing``.
///
/// Which acknowledgement settles which operation:
/// - `start`: the uncork (`pa_stream_cork(s, 0)`) callback, after the ring was prefilled;
/// - `pause`: the cork callback and the fresh timing update requested right behind it, which freezes
///   the position;
/// - `seek`: cork (if running), flush, a timing update, refill, uncork (if it was running);
/// - `stop`: cork and flush;
/// - `setVolume`: `pa_context_set_sink_input_volume`'s callback;
/// - end of track: `pa_stream_drain`, issued only while uncorked.
///
/// Gapless: a next track of the same sample format, offered with ``prepareNext(_:following:)``, is decoded
/// into the same ring straight after the current track's last frame and written to the same stream. The
/// boundary is remembered as a stream time (the frames written before it), and the track changes — a new
/// stream number, the position counted from the boundary, a `trackAdvanced` event — only once the server's
/// playback clock has passed it.
///
/// Mutable state is confined: every `var` below is read and written only with the mainloop lock held (or
/// on the mainloop thread, which holds it while running callbacks), which the compiler cannot check — hence
/// `@unchecked Sendable` on this class alone.
public final class PulseOutput: AudioOutput, @unchecked Sendable {
  /// Where to connect and how.
  public struct Configuration: Sendable, Equatable {
    /// The server address (`unix:/path`, `tcp:host`), or nil for libpulse's default (`PULSE_SERVER`, then the
    /// user's runtime directory).
    public var server: String?
    /// The sink to play to, or nil for the server's default.
    public var sink: String?
    /// The stream's target buffer length in seconds (the `tlength` buffer attribute).
    public var targetLatency: Double
    /// How long connecting may take before it fails.
    public var connectTimeout: Double

    /// Creates a configuration.
    public init(server: String? = nil, sink: String? = nil, targetLatency: Double = 0.2, connectTimeout: Double = 2) {
      self.server = server
      self.sink = sink
      self.targetLatency = targetLatency
      self.connectTimeout = connectTimeout
    }
  }

  private let configuration: Configuration
  private let mainloop: OpaquePointer
  private let settleQueue = DispatchQueue(label: "splay.pulse.settle")
  /// Where futures settle and events are reported: the consumer's executor, when it gave one
  /// (``deliver(on:)``), `settleQueue` otherwise.
  private let delivery = Lock<ExecutionContext?>(nil)
  private let decodeQueue = DispatchQueue(label: "splay.pulse.decode", qos: .userInitiated)
  private let handler = Lock<(@Sendable (OutputEvent) -> Void)?>(nil)
  private let fillScheduled = Atomic<Bool>(false)

  // Guarded by the mainloop lock.
  private var context: OpaquePointer?
  private var contextReady = false
  private var connectWaiters: [(Result<Void, PlayerError>) -> Void] = []
  /// The mainloop timer (`pa_time_event`) that gives up on a connection attempt the server does not answer.
  private var connectTimer: OpaquePointer?
  private var stream: OpaquePointer?
  private var streamReady: ((Result<Void, PlayerError>) -> Void)?
  private var decoder: (any AudioDecoder)?
  private var ring: SampleRing?
  private var running = false
  private var frameBytes = 4
  private var sampleRate = 44_100
  private var anchorSeconds = 0.0
  private var anchorStreamTime: UInt64 = 0
  /// The confirmed position, smoothed (see ``PositionFilter``).
  private var positionFilter = PositionFilter()
  private var draining: PulseOperation?
  /// Why the decoder stopped before the end of the track (the file was truncated while playing), if it did.
  private var readFailure: PlayerError?
  private var volumePercent = 100
  /// The volume asked for by `open` or `setVolume`, which a session manager's restore must not override.
  private var explicitVolume: Int?
  /// Until when (monotonic ns) a volume change splay did not make is taken for a session manager's restore of a
  /// new stream (WirePlumber's lands 0.5-2.5 ms after the stream appears) and undone in favour of
  /// `explicitVolume`; later changes come from the user (pavucontrol) and are published.
  private var restoreWatchUntil: UInt64 = 0
  /// Counts streams, so that events about a replaced stream can be told apart. A gapless track change counts
  /// as a new stream too: confirmations after it are about the next track.
  private var streamNumber: UInt64 = 0
  /// Frames written to the server since the last anchor (the stream's start or a flush).
  private var writtenFrames: Int64 = 0
  /// The track that follows the current one in this stream (gapless), once offered.
  private var upcoming: (any AudioDecoder)?
  /// The decoding queue has reached the current track's end and now decodes `upcoming` into the ring.
  private var feedingUpcoming = false
  /// `upcoming` was partly decoded before a seek went back into the current track: rewind it before reuse.
  private var upcomingNeedsRewind = false
  /// Where `upcoming` starts: frames written since the anchor, and the matching stream time in µs. Known
  /// once its first frame has been written to the server.
  private var boundary: (writtenFrames: Int64, streamTime: UInt64)?
  private var pending: [ObjectIdentifier: PulseOperation] = [:]
  /// Starts waiting for the ring's first audio (``prefill()``); answered by the decoding queue's hand-over,
  /// rejected when the stream goes.
  private var prefillWaiters: [Future<Void, PlayerError>.Resolver] = []
  /// What runs with the lock held once the ring holds its first audio (`true`), or when the stream goes before
  /// it does (`false`): the uncork of a stream prepared to play, which must not wait for a thread hand-over.
  private var prefillActions: [(Bool) -> Void] = []
  /// Pauses whose cork the server acknowledged, waiting for the next timing update (``pause()``).
  private var corksAwaitingTiming: [CorkOutcome] = []
  /// The mainloop timer (`pa_time_event`) that asks for timing updates while audio flows
  /// (``scheduleTimingLocked(restart:)``), and the wait before its next request, in µs.
  private var timingTimer: OpaquePointer?
  private var timingInterval: pa_usec_t = 0
  /// Timing updates the server answered, for every stream of this output.
  private var timingUpdates = 0
  /// The stream ``prepare(_:playingWhen:)`` is making ahead of the first `open`, until that `open` takes it or replaces it.
  private var prepared: PreparedStream?
  /// Set by the first `open`: from then on the controller decides about streams, and nothing is prepared.
  private var opened = false

  /// Creates an output; it connects on the first `open` or `prepare` (or at ``connectEarly()``).
  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
    mainloop = pa_threaded_mainloop_new()
    pa_threaded_mainloop_start(mainloop)
  }

  /// A connection to the server begun before its output existed: a started `pa_threaded_mainloop` and a
  /// context on it for which `pa_context_connect` was called, with no callbacks set. `splay play` begins one
  /// before `main`, while the Swift runtime starts and the command line is parsed.
  public struct Connection: @unchecked Sendable {
    let mainloop: OpaquePointer
    let context: OpaquePointer

    /// Wraps the two handles; the output made with it owns both from then on.
    public init(mainloop: OpaquePointer, context: OpaquePointer) {
      self.mainloop = mainloop
      self.context = context
    }
  }

  /// Creates an output that takes over `connection`, made for `configuration`'s server, wherever its
  /// handshake has got to: the first `open` waits for what is left of it, and a connection that failed is
  /// reported by that `open` as any failed connection is (the next `open` connects again).
  public init(configuration: Configuration, adopting connection: Connection) {
    self.configuration = configuration
    mainloop = connection.mainloop
    locked {
      context = connection.context
      watchContextLocked(connection.context)
      // Whatever state it reached before it was watched (ready, or failed) is taken up now.
      contextStateChanged()
    }
  }

  deinit {
    // The last reference may go away inside a libpulse callback (a continuation that held the output ran
    // there). The loop thread already holds the lock then, and may not stop or free its own loop: tear the
    // stream and context down in place and leave the loop to another thread.
    let inLoop = pa_threaded_mainloop_in_thread(mainloop) != 0
    if !inLoop { pa_threaded_mainloop_lock(mainloop) }
    teardownStream()
    teardownContext(error: .outputLost(detail: "the output was closed"))
    if inLoop {
      let loop = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(mainloop)))
      DispatchQueue.global().async {
        guard let mainloop = OpaquePointer(bitPattern: loop) else { return }
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
      }
    } else {
      pa_threaded_mainloop_unlock(mainloop)
      pa_threaded_mainloop_stop(mainloop)
      pa_threaded_mainloop_free(mainloop)
    }
  }

  /// Starts connecting to the server now instead of at the first `open`, so that the handshake overlaps with
  /// what the caller does meanwhile (parsing arguments, probing files): the first sound comes sooner. A
  /// failure is not reported here; the first `open` reports it (and tries again). Does nothing while a
  /// connection is made or under way (an adopted one, for example): nobody would wait for the answer, and
  /// handing it over to a thread of its own would only take a CPU from the start-up.
  public func connectEarly() {
    locked {
      guard context == nil else { return }
      whenConnectedLocked { _ in }
    }
  }

  /// `pulse:` and the server address tried.
  public var destination: String { "pulse:" + serverName }

  private var serverName: String {
    configuration.server ?? getenv("PULSE_SERVER").map { String(cString: $0) } ?? "the default server"
  }

  /// Sets the receiver of events.
  public func setEventHandler(_ handler: @escaping @Sendable (OutputEvent) -> Void) {
    self.handler.withLock { $0 = handler }
  }

  // MARK: - Operations

  /// Creates a corked stream for `decoder` at its first frame and full volume ahead of the `open` that will ask
  /// for exactly that, and starts filling it: that `open` then waits only for what is left of the stream's
  /// creation and prefill. `splay play` prepares its first file while its command line is still being parsed.
  ///
  /// With `playingWhen`, the stream is also uncorked as soon as its first audio is in the server's buffer and
  /// that future has succeeded, as `paplay` starts: for a caller that knows the first command will be to play
  /// this track from its start (`splay play FILE`, whose command line says nothing else), and that is still
  /// finishing its own checks of the file (the future). When the future fails or is cancelled, the stream stays
  /// corked. The `open` that takes a stream prepared to play waits for that future, and for the server's
  /// acknowledgement of the uncork when it succeeded, and confirms a running stream; until an `open` has taken
  /// it, the end of the track is not acted on (nobody would hear of it).
  ///
  /// Nothing is guessed for the controller: the first `open` takes the prepared stream only when it is for the
  /// same decoder object, at 0 s and full volume, and replaces it otherwise (as any `open` replaces the stream,
  /// which silences one that was playing). The `open` that takes it reports what its creation reported, a
  /// failed connection attempt included (the next `open` connects again). No-op once an `open` came or a
  /// stream is prepared.
  ///
  /// - Returns: a future that settles when the server has created the stream — for a stream prepared to play,
  ///   when it acknowledged the uncork or the stream stays corked — or when making it failed; cancelled when
  ///   nothing was prepared or an `open` of something else replaced it first.
  @discardableResult
  public func prepare(_ decoder: any AudioDecoder, playingWhen cleared: Future<Void, PlayerError>? = nil) -> Future<
    Void, PlayerError
  > {
    let made = locked { () -> PreparedStream? in
      guard !opened, prepared == nil else { return nil }
      prepared = PreparedStream(decoder: decoder, playing: cleared != nil)
      return prepared
    }
    guard let entry = made else { return .cancelled() }
    cleared?.whenComplete { [self] outcome in
      let record = {
        if case .success = outcome { entry.start = .cleared } else { entry.start = .refused }
        self.advancePreparedLocked(entry)
      }
      // Settled on the mainloop thread, this runs there, where the lock is held already.
      if pa_threaded_mainloop_in_thread(mainloop) != 0 { record() } else { locked(record) }
    }
    // The stream is asked for in the callback that reports the handshake done, as a C client would: going
    // through a future there cost a thread hand-over before the stream could even be requested.
    locked {
      whenConnectedLocked { [self] connected in
        guard case .success = connected else { return handOff { entry.resolver.settle(with: Outcome(connected)) } }
        // Replaced by an `open` of something else meanwhile: that `open` makes its own stream.
        guard !entry.dropped else { return handOff { entry.resolver.settle(with: .cancelled) } }
        createStream(for: decoder, at: 0, volume: nil) { result in
          guard case .success = result else {
            entry.finished = true
            return self.handOff { entry.resolver.settle(with: Outcome(result)) }
          }
          entry.created = true
          if entry.start != .none {
            self.whenPrefilledLocked { filled in
              guard filled else {
                entry.finished = true
                return self.handOff { entry.resolver.settle(with: .cancelled) }
              }
              entry.prefilled = true
              self.advancePreparedLocked(entry)
            }
          }
          self.advancePreparedLocked(entry)
        }
        entry.stream = streamNumber
      }
    }
    return entry.ready
  }

  /// Settles a prepared stream's `ready` once what it waits for is there (lock held): the stream created,
  /// and for a stream prepared to play, its first audio in and its `playingWhen` future settled; uncorks it
  /// first when that future succeeded.
  private func advancePreparedLocked(_ entry: PreparedStream) {
    guard entry.created, !entry.finished else { return }
    switch entry.start {
    case .none, .refused:
      entry.finished = true
      handOff { entry.resolver.resolve() }
    case .waiting:
      return
    case .cleared:
      guard entry.prefilled else { return }
      entry.finished = true
      uncorkPreparedLocked(entry)
    }
  }

  /// Uncorks a stream prepared to play (lock held); its `ready` future settles with the acknowledgement.
  private func uncorkPreparedLocked(_ entry: PreparedStream) {
    guard let stream, streamNumber == entry.stream, !entry.dropped else {
      return handOff { entry.resolver.settle(with: .cancelled) }
    }
    let failed: (PlayerError) -> Void = { error in self.handOff { entry.resolver.reject(error) } }
    issue(
      "start", start: { done in uncorkLocked(stream, done) },
      completion: { [self] ok in
        guard ok else { return failed(.outputFailed(operation: "start", detail: lastErrorLocked())) }
        startedLocked()
        handOff { entry.resolver.resolve() }
      }, failure: failed)
  }

  /// Connects if needed, then creates a corked stream for the decoder's format at `seconds`, or takes the one
  /// ``prepare(_:playingWhen:)`` made for this very decoder at 0 s and the server's volume, which may be
  /// running: the confirmation says so.
  public func open(_ decoder: any AudioDecoder, at seconds: Double, volume: Int?) -> Future<
    OutputConfirmation, PlayerError
  > {
    let adopted = locked { () -> PreparedStream? in
      opened = true
      guard let entry = prepared else { return nil }
      prepared = nil
      if entry.decoder === decoder, seconds == 0, volume == nil { return entry }
      entry.dropped = true
      return nil
    }
    guard let adopted else { return openAnew(decoder, at: seconds, volume: volume) }
    return adopted.ready.flatMap { [self] _ in prefill() }.map { [self] _ in
      locked {
        // A stream that plays may have taken in all of a short track while nobody listened: its drain begins
        // now that somebody does.
        if running { pumpLocked() }
        return OutputConfirmation(
          position: running ? positionLocked() : 0, time: Self.now(), running: running, stream: adopted.stream,
          device: deviceNameLocked, volume: volumePercent)
      }
    }
  }

  private func openAnew(_ decoder: any AudioDecoder, at seconds: Double, volume: Int?) -> Future<
    OutputConfirmation, PlayerError
  > {
    connect().flatMap { [self] _ in
      let (future, resolver) = Future<Void, PlayerError>.pending()
      let number = locked {
        createStream(for: decoder, at: seconds, volume: volume) { result in
          self.handOff { resolver.settle(with: Outcome(result)) }
        }
        return streamNumber
      }
      return future.flatMap { [self] _ in prefill() }.map { [self] _ in
        let (device, volume) = locked { (deviceNameLocked, volumePercent) }
        return OutputConfirmation(
          position: seconds, time: Self.now(), running: false, stream: number, device: device, volume: volume)
      }
    }
  }

  /// Uncorks once the ring holds audio; resolves on the server's acknowledgement.
  public func start() -> Future<OutputConfirmation, PlayerError> {
    prefill().flatMap { [self] _ in
      streamOperation("start") { stream, done in
        self.uncorkLocked(stream, done)
      } then: { [self] in
        startedLocked()
        return OutputConfirmation(position: positionLocked(), time: Self.now(), running: true, stream: streamNumber)
      }
    }
  }

  /// Writes what the ring holds, then asks the server to uncork (lock held): the audio is there when it starts.
  private func uncorkLocked(_ stream: OpaquePointer, _ done: UnsafeMutableRawPointer) -> OpaquePointer? {
    pumpLocked()
    let operation = pa_stream_cork(stream, 0, PulseOperation.streamCallback, done)
    requestTimingLocked()
    return operation
  }

  /// The server acknowledged an uncork (mainloop thread): audio flows, the ring is topped up and a gapless
  /// boundary is watched for again.
  private func startedLocked() {
    positionFilter.resumed(at: Self.now())
    running = true
    scheduleTimingLocked(restart: true)
    pumpLocked()
    scheduleBoundaryCheckLocked()
  }

  /// Corks, and confirms with the position from the first timing update the server answers after the cork:
  /// that update is requested right behind the cork, so it is taken once the stream had stopped, and the
  /// position it gives is where the audio stopped.
  public func pause() -> Future<OutputConfirmation, PlayerError> {
    let (future, resolver) = Future<OutputConfirmation, PlayerError>.pending()
    locked {
      guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else {
        handOff { resolver.reject(.outputFailed(operation: "pause", detail: "no stream is open")) }
        return
      }
      // Written and read only on the mainloop thread, in the callbacks of the cork and the timing updates.
      let cork = CorkOutcome()
      // The outcome holds `answer` and `fail`, which hold it: whichever settles the pause breaks the cycle.
      let failed: (PlayerError) -> Void = { error in
        guard !cork.answered else { return }
        cork.answered = true
        cork.answer = nil
        cork.fail = nil
        self.handOff { resolver.reject(error) }
      }
      cork.answer = { [self] in
        guard !cork.answered else { return }
        cork.answered = true
        cork.answer = nil
        cork.fail = nil
        let confirmation = OutputConfirmation(
          position: positionLocked(), time: Self.now(), running: running, stream: streamNumber)
        handOff { self.resolve(resolver, confirmation) }
      }
      cork.fail = failed
      issue(
        "pause",
        start: { [self] done in
          let operation = pa_stream_cork(stream, 1, PulseOperation.streamCallback, done)
          requestTimingLocked()
          return operation
        },
        completion: { [self] ok in
          guard ok else { return failed(.outputFailed(operation: "pause", detail: lastErrorLocked())) }
          running = false
          cancelDrainLocked()
          corksAwaitingTiming.append(cork)
        }, failure: failed)
    }
    return future
  }

  /// Moves to `seconds`: cork, flush, refill from the new position, uncork if it was playing.
  public func seek(to seconds: Double) -> Future<OutputConfirmation, PlayerError> {
    reposition(to: seconds, name: "seek", resume: nil)
  }

  /// Corks and flushes, positioned at the start of the track.
  public func stop() -> Future<OutputConfirmation, PlayerError> {
    reposition(to: 0, name: "stop", resume: false)
  }

  /// Sets the stream's volume (PulseAudio's cubic scale, as `pactl` percentages).
  public func setVolume(_ percent: Int) -> Future<Int, PlayerError> {
    let level = min(max(percent, 0), 100)
    let (future, resolver) = Future<Int, PlayerError>.pending()
    locked {
      guard context != nil, contextReady, let stream, pa_stream_get_state(stream) == PA_STREAM_READY else {
        // No stream: the level is applied when the next stream is created, with that stream's acknowledgement.
        volumePercent = level
        explicitVolume = level
        handOff { resolver.resolve(level) }
        return
      }
      applyVolumeLocked(level, to: stream) { [self] result in
        if case .success = result { explicitVolume = level }
        let outcome = result.map { level }
        handOff {
          // Set after the command gave up waiting: the level changed all the same, so it is an event.
          if !resolver.settle(with: Outcome(outcome)), case .success = outcome { self.report(.volumeChanged(level)) }
        }
      }
    }
    return future
  }

  /// Reads the stream's position and state from a fresh timing update.
  public func status() -> Future<OutputConfirmation, PlayerError> {
    timingUpdate("status")
  }

  /// Same-format tracks follow each other in one stream.
  public var playsGapless: Bool { true }

  /// Takes `decoder` as the track after the current one when it has the same sample format and the stream is
  /// still `stream`; it is decoded into the ring after the current track's last frame.
  public func prepareNext(_ decoder: any AudioDecoder, following stream: UInt64) -> Future<Bool, PlayerError> {
    let next = decoder.info
    let accepted = locked { () -> Bool in
      guard self.stream != nil, let ring, let current = self.decoder, streamNumber == stream, !feedingUpcoming,
        current.info.sampleRate == next.sampleRate, current.info.channels == next.channels
      else { return false }
      upcoming = decoder
      upcomingNeedsRewind = false
      // The decoder may already have queued the current track's end: continue the ring while its last frames
      // are still waiting to be written; once they are all gone (the drain has begun), it is too late.
      if ring.fillState.endOfTrack {
        guard draining == nil, ring.markBoundary(generation: ring.fillState.generation) else {
          upcoming = nil
          return false
        }
        feedingUpcoming = true
        scheduleFill(evenAboveTheMark: true)
      }
      return true
    }
    return .resolved(accepted)
  }

  /// Closes the stream, keeping the connection.
  public func close() -> Future<Void, PlayerError> {
    locked { teardownStream() }
    return .resolved(())
  }

  // MARK: - Connection

  private func connect() -> Future<Void, PlayerError> {
    let (future, resolver) = Future<Void, PlayerError>.pending()
    locked {
      whenConnectedLocked { result in self.handOff { resolver.settle(with: Outcome(result)) } }
    }
    return future
  }

  /// Runs `body` once connected, or once connecting failed: at once when the context is ready, otherwise in
  /// the context's state callback (mainloop thread), either way with the lock held; connects if nothing is
  /// under way. What must follow the handshake without a thread hand-over (a prepared stream's creation)
  /// uses this instead of ``connect()``.
  private func whenConnectedLocked(_ body: @escaping (Result<Void, PlayerError>) -> Void) {
    if context != nil, contextReady { return body(.success(())) }
    connectWaiters.append(body)
    guard context == nil else { return }
    let api = pa_threaded_mainloop_get_api(mainloop)
    let props = pa_proplist_new()
    pa_proplist_sets(props, PA_PROP_APPLICATION_NAME, "splay")
    pa_proplist_sets(props, PA_PROP_APPLICATION_ID, "org.splay.player")
    pa_proplist_sets(props, PA_PROP_MEDIA_ROLE, "music")
    let made = pa_context_new_with_proplist(api, "splay", props)
    pa_proplist_free(props)
    guard let ctx = made else { return failConnect(detail: "no memory for a connection") }
    context = ctx
    watchContextLocked(ctx)
    if pa_context_connect(ctx, configuration.server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
      failConnect(detail: lastErrorLocked())
    }
  }

  /// Follows the connecting context's state, with a deadline behind the wait: libpulse's own connect timeout
  /// is far longer than a player should hang. The deadline is a timer of the mainloop itself, freed as soon as
  /// the attempt ends either way, so that nothing of the attempt outlives it.
  private func watchContextLocked(_ ctx: OpaquePointer) {
    pa_context_set_state_callback(
      ctx,
      { _, userdata in
        Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue().contextStateChanged()
      }, Unmanaged.passUnretained(self).toOpaque())
    let deadline = pa_rtclock_now() + pa_usec_t(configuration.connectTimeout * 1e6)
    connectTimer = pa_context_rttime_new(
      ctx, deadline,
      { _, _, _, userdata in
        Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue().connectTimedOut()
      }, Unmanaged.passUnretained(self).toOpaque())
  }

  /// The connection attempt got no answer in time (mainloop thread).
  private func connectTimedOut() {
    cancelConnectTimerLocked()
    guard !contextReady, context != nil else { return }
    failConnect(detail: "no answer within \(formatSeconds(configuration.connectTimeout)) s")
  }

  private func cancelConnectTimerLocked() {
    guard let timer = connectTimer else { return }
    connectTimer = nil
    pa_threaded_mainloop_get_api(mainloop).pointee.time_free(timer)
  }

  private func contextStateChanged() {
    guard let context else { return }
    switch pa_context_get_state(context) {
    case PA_CONTEXT_READY:
      cancelConnectTimerLocked()
      contextReady = true
      subscribeToVolumeChanges(context)
      let waiters = connectWaiters
      connectWaiters.removeAll()
      for waiter in waiters { waiter(.success(())) }
    case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
      if contextReady {
        let error = PlayerError.outputLost(detail: "\(serverName): \(lastErrorLocked())")
        teardownStream()
        teardownContext(error: error)
        let handler = handler.withLock { $0 }
        handOff { handler?(.lost(error)) }
      } else {
        failConnect(detail: lastErrorLocked())
      }
    default:
      break
    }
  }

  /// Asks the server to report changes of sink inputs, so that a volume set by another program (pavucontrol,
  /// `pactl set-sink-input-volume`) arrives as a confirmed `volumeChanged` event.
  private func subscribeToVolumeChanges(_ context: OpaquePointer) {
    pa_context_set_subscribe_callback(
      context,
      { _, event, index, userdata in
        let output = Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue()
        output.sinkInputChanged(event: event, index: index)
      }, Unmanaged.passUnretained(self).toOpaque())
    if let operation = pa_context_subscribe(context, PA_SUBSCRIPTION_MASK_SINK_INPUT, nil, nil) {
      pa_operation_unref(operation)
    }
  }

  /// A sink input changed (mainloop thread): when it is this output's stream, read its volume.
  private func sinkInputChanged(event: pa_subscription_event_type_t, index: UInt32) {
    let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
    let kind = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
    guard facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue, kind == PA_SUBSCRIPTION_EVENT_CHANGE.rawValue,
      let context, let stream, pa_stream_get_state(stream) == PA_STREAM_READY, pa_stream_get_index(stream) == index
    else { return }
    let query = pa_context_get_sink_input_info(
      context, index,
      { _, info, _, userdata in
        guard let info else { return }
        let output = Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue()
        var volume = info.pointee.volume
        output.sinkInputVolumeRead(index: info.pointee.index, volume: pa_cvolume_avg(&volume))
      }, Unmanaged.passUnretained(self).toOpaque())
    if let query { pa_operation_unref(query) }
  }

  /// The server's volume of a sink input (mainloop thread): a change that splay did not make is an event, unless
  /// it is a session manager's restore of a new stream that overrides an explicit volume: that is undone.
  private func sinkInputVolumeRead(index: UInt32, volume: pa_volume_t) {
    guard let stream, pa_stream_get_index(stream) == index else { return }
    let percent = Self.percent(volume)
    guard percent != volumePercent else { return }
    if let explicit = explicitVolume, explicit == volumePercent, Self.now() < restoreWatchUntil {
      return applyVolumeLocked(explicit, to: stream) { _ in }
    }
    volumePercent = percent
    explicitVolume = nil
    let handler = handler.withLock { $0 }
    handOff { handler?(.volumeChanged(percent)) }
  }

  static func percent(_ volume: pa_volume_t) -> Int {
    Int((Double(volume) * 100 / Double(PA_VOLUME_NORM)).rounded())
  }

  /// Sets the stream's volume at the server (lock held); `done` gets the server's answer.
  private func applyVolumeLocked(
    _ level: Int, to stream: OpaquePointer, _ done: @escaping (Result<Void, PlayerError>) -> Void
  ) {
    guard let context else { return done(.failure(.outputLost(detail: "\(serverName): not connected"))) }
    var volume = pa_cvolume()
    pa_cvolume_set(&volume, UInt32(max(1, ringChannels)), Self.paVolume(level))
    let index = pa_stream_get_index(stream)
    issue(
      "volume",
      start: { ticket in
        pa_context_set_sink_input_volume(context, index, &volume, PulseOperation.contextCallback, ticket)
      },
      completion: { [self] ok in
        guard ok else { return done(.failure(.outputFailed(operation: "volume", detail: lastErrorLocked()))) }
        volumePercent = level
        done(.success(()))
      }, failure: { error in done(.failure(error)) })
  }

  /// Reads the new stream's volume at the server, and sets the explicit one when that differs (lock held): a
  /// server may ignore the volume a stream is created with (PipeWire 0.3.65 plays it at 100 %), or restore a
  /// saved one. `done` runs once the stream's volume is known, or could not be read.
  private func settleNewStreamVolumeLocked(_ stream: OpaquePointer, _ done: @escaping () -> Void) {
    restoreWatchUntil = Self.now() + 1_000_000_000
    guard let context else { return done() }
    let index = pa_stream_get_index(stream)
    final class Reading { var volume: pa_volume_t? }
    let reading = Reading()
    issue(
      "volume (read)",
      start: { ticket in pa_context_get_sink_input_info(context, index, PulseOperation.sinkInputCallback, ticket) },
      completion: { [self] _ in
        guard let volume = reading.volume, self.stream == stream else { return done() }
        volumePercent = Self.percent(volume)
        guard let explicit = explicitVolume, explicit != volumePercent else { return done() }
        applyVolumeLocked(explicit, to: stream) { _ in done() }
      }, failure: { _ in done() }, volumeRead: { reading.volume = $0 })
  }

  private func failConnect(detail: String) {
    let waiters = connectWaiters
    connectWaiters.removeAll()
    teardownContext(error: .outputUnavailable(server: serverName, detail: detail))
    for waiter in waiters { waiter(.failure(.outputUnavailable(server: serverName, detail: detail))) }
  }

  /// Forgets the context and fails every operation libpulse will now never call back.
  private func teardownContext(error: PlayerError) {
    cancelConnectTimerLocked()
    freeTimingTimerLocked()
    let operations = pending.values
    pending.removeAll()
    for operation in operations {
      if let handle = operation.handle {
        pa_operation_cancel(handle)
        pa_operation_unref(handle)
      }
      Unmanaged.passUnretained(operation).release()
      operation.failure(error)
    }
    draining = nil
    if let ctx = context {
      pa_context_set_state_callback(ctx, nil, nil)
      pa_context_set_subscribe_callback(ctx, nil, nil)
      pa_context_disconnect(ctx)
      pa_context_unref(ctx)
    }
    context = nil
    contextReady = false
  }

  // MARK: - Stream

  private var ringChannels: Int { ring?.channels ?? 2 }

  private func createStream(
    for decoder: any AudioDecoder, at seconds: Double, volume: Int?,
    ready: @escaping (Result<Void, PlayerError>) -> Void
  ) {
    teardownStream()
    guard let context, contextReady else {
      return ready(.failure(.outputLost(detail: "\(serverName): not connected")))
    }
    let info = decoder.info
    var spec = pa_sample_spec(
      format: PA_SAMPLE_FLOAT32LE, rate: UInt32(info.sampleRate), channels: UInt8(info.channels))
    guard pa_sample_spec_valid(&spec) != 0 else {
      return ready(.failure(.unsupportedFormat(path: info.path, detail: "PulseAudio cannot play this sample format")))
    }
    // Decode up to two seconds ahead of the server's buffer: the decoding queue may lose the CPU for a while
    // on a busy machine, and the write callback must still find audio to copy.
    let ringFrames = max(Int(Double(info.sampleRate) * max(configuration.targetLatency * 2, 2)), 4096)
    guard let ring = SampleRing(frames: ringFrames, channels: info.channels) else {
      return ready(.failure(.outputFailed(operation: "open", detail: "no memory for the sample ring")))
    }
    let props = pa_proplist_new()
    pa_proplist_sets(props, PA_PROP_MEDIA_ROLE, "music")
    pa_proplist_sets(props, PA_PROP_MEDIA_NAME, info.displayTitle)
    pa_proplist_sets(props, PA_PROP_MEDIA_FILENAME, info.path)
    if let artist = info.artist { pa_proplist_sets(props, PA_PROP_MEDIA_ARTIST, artist) }
    guard let s = pa_stream_new_with_proplist(context, info.displayTitle, &spec, nil, props) else {
      pa_proplist_free(props)
      return ready(.failure(.outputFailed(operation: "open", detail: lastErrorLocked())))
    }
    pa_proplist_free(props)
    stream = s
    streamNumber += 1
    self.decoder = decoder
    readFailure = nil
    frameBytes = info.channels * MemoryLayout<Float>.size
    sampleRate = info.sampleRate
    self.ring = ring
    running = false
    volumePercent = volume ?? 100
    explicitVolume = volume
    let frame = Int64((seconds * Double(info.sampleRate)).rounded())
    anchorSeconds = Double(min(max(frame, 0), info.frames)) / Double(info.sampleRate)
    anchorStreamTime = 0
    writtenFrames = 0
    positionFilter.reset(to: anchorSeconds)
    ring.invalidate()
    refill(from: frame, ring: ring, decoder: decoder)

    let me = Unmanaged.passUnretained(self).toOpaque()
    // Ready once the server has made it and its volume is known.
    streamReady = { [self] result in
      guard case .success = result else { return ready(result) }
      settleNewStreamVolumeLocked(s) { ready(.success(())) }
    }
    pa_stream_set_state_callback(
      s, { _, userdata in Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue().streamStateChanged() },
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
        let handler = output.handler.withLock { $0 }
        output.handOff { handler?(.underflow) }
      }, me)

    // The server asks for more once a quarter of the target is free: left to itself, PulseAudio 16 asks for
    // 20 ms at a time, which wakes this process and the server fifty times a second for nothing.
    let target = UInt64(configuration.targetLatency * 1e6)
    var attr = pa_buffer_attr(
      maxlength: UInt32.max, tlength: UInt32(pa_usec_to_bytes(target, &spec)),
      prebuf: UInt32.max, minreq: UInt32(pa_usec_to_bytes(target / 4, &spec)), fragsize: UInt32.max)
    // Without a volume the server chooses (its session manager may restore the one saved for splay).
    var cv = pa_cvolume()
    pa_cvolume_set(&cv, UInt32(info.channels), Self.paVolume(volume ?? 100))
    let flags = pa_stream_flags_t(
      PA_STREAM_START_CORKED.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue)
    let connected = withUnsafePointer(to: &cv) { volume in
      pa_stream_connect_playback(s, configuration.sink, &attr, flags, self.explicitVolume == nil ? nil : volume, nil)
    }
    if connected < 0 {
      streamReady = nil
      teardownStream()
      ready(.failure(.outputFailed(operation: "open", detail: lastErrorLocked())))
    }
  }

  private func streamStateChanged() {
    guard let stream else { return }
    switch pa_stream_get_state(stream) {
    case PA_STREAM_READY:
      requestTimingLocked()
      let ready = streamReady
      streamReady = nil
      ready?(.success(()))
    case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
      let detail = lastErrorLocked()
      if let ready = streamReady {
        streamReady = nil
        teardownStream()
        ready(.failure(.outputFailed(operation: "open", detail: detail)))
      } else if contextReady {
        // The server killed the stream (its sink went away, for example): the track cannot continue.
        let error = PlayerError.outputLost(detail: "the stream was closed by the server: \(detail)")
        failPendingStreamOperations(error)
        teardownStream()
        let handler = handler.withLock { $0 }
        handOff { handler?(.lost(error)) }
      }
    default:
      break
    }
  }

  /// A timing update arrived (mainloop thread): the pauses whose cork was acknowledged before it can confirm.
  private func timingUpdatedLocked() {
    timingUpdates += 1
    guard !corksAwaitingTiming.isEmpty else { return }
    let corks = corksAwaitingTiming
    corksAwaitingTiming = []
    for cork in corks { cork.answer?() }
  }

  /// The sink the open stream plays to, as the server last said.
  private var deviceNameLocked: String? {
    guard let stream, let name = pa_stream_get_device_name(stream) else { return nil }
    return String(cString: name)
  }

  /// Reports the sink the server moved the stream to (mainloop thread).
  private func reportDeviceLocked() {
    guard let device = deviceNameLocked else { return }
    handOff { self.report(.deviceChanged(device)) }
  }

  private func failPendingStreamOperations(_ error: PlayerError) {
    for (key, operation) in pending where operation.name != "volume" {
      pending[key] = nil
      if let handle = operation.handle {
        pa_operation_cancel(handle)
        pa_operation_unref(handle)
      }
      Unmanaged.passUnretained(operation).release()
      operation.failure(error)
    }
    // Pauses whose cork was acknowledged wait for no operation of theirs, only for the next timing update.
    let corks = corksAwaitingTiming
    corksAwaitingTiming = []
    for cork in corks { cork.fail?(error) }
  }

  private func teardownStream() {
    if let stream {
      pa_stream_set_state_callback(stream, nil, nil)
      pa_stream_set_write_callback(stream, nil, nil)
      pa_stream_set_underflow_callback(stream, nil, nil)
      pa_stream_set_moved_callback(stream, nil, nil)
      pa_stream_set_latency_update_callback(stream, nil, nil)
      failPendingStreamOperations(.cancelled)
      pa_stream_disconnect(stream)
      pa_stream_unref(stream)
    }
    stream = nil
    // An `open` (or a prepared stream) still waiting for the server to create this stream will not get it.
    if let ready = streamReady {
      streamReady = nil
      ready(.failure(.cancelled))
    }
    corksAwaitingTiming = []
    if !prefillWaiters.isEmpty {
      let waiters = prefillWaiters
      prefillWaiters = []
      handOff { for waiter in waiters { waiter.reject(.cancelled) } }
    }
    let actions = prefillActions
    prefillActions = []
    for action in actions { action(false) }
    ring?.invalidate()
    ring = nil
    decoder = nil
    forgetUpcomingLocked()
    running = false
    draining = nil
  }

  private func forgetUpcomingLocked() {
    upcoming = nil
    feedingUpcoming = false
    upcomingNeedsRewind = false
    boundary = nil
  }

  /// How many timing updates the server has answered so far: tests check that a paused stream asks for none.
  var timingUpdatesAnswered: Int { locked { timingUpdates } }

  /// Asks the server for a timing update and does not wait for it (lock held); the latency-update callback
  /// sees it arrive. `pa_stream_get_time` gives nothing after a cork, an uncork or a flush until an update
  /// taken after it arrives, so one is requested right behind each.
  private func requestTimingLocked() {
    guard let stream, let operation = pa_stream_update_timing_info(stream, nil, nil) else { return }
    pa_operation_unref(operation)
  }

  /// Asks for timing updates while audio flows, 10 ms after the uncork and then twice as long after each up to
  /// 1.5 s, as libpulse's automatic updates do: they keep the interpolated clock true. Unlike those, they stop
  /// while the stream is corked (libpulse's went on every 1.5 s and kept a paused player waking); a cork
  /// stops the timer at its next firing. `restart` starts the schedule over (lock held).
  private func scheduleTimingLocked(restart: Bool) {
    guard let context else { return }
    if restart { timingInterval = 10_000 }
    let due = pa_rtclock_now() + timingInterval
    timingInterval = min(timingInterval * 2, 1_500_000)
    if let timer = timingTimer {
      pa_context_rttime_restart(context, timer, due)
      return
    }
    timingTimer = pa_context_rttime_new(
      context, due,
      { _, _, _, userdata in
        Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue().timingTimerFired()
      }, Unmanaged.passUnretained(self).toOpaque())
  }

  /// The timing timer fired (mainloop thread): one more update while audio flows, none once corked.
  private func timingTimerFired() {
    guard running, stream != nil else { return }
    requestTimingLocked()
    scheduleTimingLocked(restart: false)
  }

  private func freeTimingTimerLocked() {
    guard let timer = timingTimer else { return }
    timingTimer = nil
    pa_threaded_mainloop_get_api(mainloop).pointee.time_free(timer)
  }

  // MARK: - Audio path

  /// Writes what the ring holds into the server's buffer. Runs on the mainloop thread (write callback) or
  /// with the lock held.
  private func pumpLocked() {
    guard let stream, let ring, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
    var writable = pa_stream_writable_size(stream)
    while writable >= frameBytes, ring.availableFrames > 0 {
      var data: UnsafeMutableRawPointer?
      var bytes = writable
      guard pa_stream_begin_write(stream, &data, &bytes) == 0, let data, bytes >= frameBytes else { break }
      let (frames, crossing) = ring.pop(into: data, maxFrames: bytes / frameBytes)
      guard frames > 0 else {
        pa_stream_cancel_write(stream)
        break
      }
      pa_stream_write(stream, data, frames * frameBytes, nil, 0, PA_SEEK_RELATIVE)
      if let crossing {
        let before = writtenFrames + Int64(crossing)
        boundary = (before, anchorStreamTime + UInt64(Double(before) * 1e6 / Double(sampleRate)))
        scheduleBoundaryCheckLocked()
      }
      writtenFrames += Int64(frames)
      writable = pa_stream_writable_size(stream)
    }
    advanceIfBoundaryPlayedLocked()
    if ring.drained {
      // Not before an `open` took the stream: a stream prepared to play has nobody to tell of its end yet.
      if running && draining == nil && opened { startDrainLocked() }
    } else {
      scheduleFill()
    }
  }

  private func startDrainLocked() {
    guard let stream else { return }
    let operation = issue(
      "drain", start: { done in pa_stream_drain(stream, PulseOperation.streamCallback, done) },
      completion: { [self] ok in
        draining = nil
        guard ok, running, let info = decoder?.info else { return }
        running = false
        // A track whose file could not be read to the end stopped where its audio did, not at the length
        // its header declared: that is the position to confirm, with the reason.
        let failure = readFailure
        let end = failure == nil ? info.duration : Double(ring?.frame ?? 0) / Double(info.sampleRate)
        let confirmation = OutputConfirmation(position: end, time: Self.now(), running: false, stream: streamNumber)
        positionFilter.reset(to: end)
        let event: OutputEvent = failure.map { .trackFailed($0, confirmation) } ?? .trackFinished(confirmation)
        let handler = handler.withLock { $0 }
        handOff { handler?(event) }
      }, failure: { _ in })
    draining = operation
  }

  private func cancelDrainLocked() {
    guard let operation = draining else { return }
    draining = nil
    pending[ObjectIdentifier(operation)] = nil
    if let handle = operation.handle {
      pa_operation_cancel(handle)
      pa_operation_unref(handle)
    }
    Unmanaged.passUnretained(operation).release()
  }

  /// Decodes more audio on the decoding queue once the ring is down to its low-water mark (or at once with
  /// `evenAboveTheMark`), unless a fill is already on its way.
  private func scheduleFill(evenAboveTheMark: Bool = false) {
    guard let ring, let decoder = feedingUpcoming ? upcoming : decoder, evenAboveTheMark || ring.wantsRefill,
      !fillScheduled.exchange(true, ordering: .acquiringAndReleasing)
    else { return }
    decodeQueue.async { [self] in
      fillScheduled.store(false, ordering: .releasing)
      fill(ring: ring, decoder: decoder)
    }
  }

  /// Moves the decoder to `frame` and refills the ring from there, on the decoding queue.
  private func refill(from frame: Int64, ring: SampleRing, decoder: any AudioDecoder) {
    decodeQueue.async { [self] in
      let reached = (try? decoder.seek(toFrame: frame)) ?? 0
      locked { if ring === self.ring { readFailure = nil } }
      _ = ring.reset(toFrame: reached)
      fill(ring: ring, decoder: decoder)
    }
  }

  /// Decodes until the ring is full or the track ends, handing the audio to the server after the first two
  /// chunks and at the end. Runs on `decodeQueue`, never on the mainloop thread.
  private func fill(ring: SampleRing, decoder: any AudioDecoder) {
    // The first audio after a seek or start must not wait for the whole ring to be decoded: it is handed
    // over after two chunks, and the rest follows in the same call rather than in one wake-up per chunk.
    let chunk = 4096
    let handOverAfter = 2
    let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: chunk * ring.channels)
    defer { scratch.deallocate() }
    var wrote = false
    var chunks = 0
    var source = decoder
    let corkedFill = locked { corkedFillFramesLocked }
    while true {
      let (generation, free, ended) = ring.fillState
      guard !ended, free > 0 else { break }
      let want = min(free, chunk)
      var frames: Int
      var failed = false
      do {
        frames = try source.read(into: scratch, frames: want)
      } catch {
        // What was decoded still plays; the end of the track is then reported with this error (and the next
        // track, even if offered, takes the usual path so that the failure is about the right track).
        locked { if ring === self.ring { readFailure = error } }
        frames = 0
        failed = true
      }
      if frames == 0, !failed, let (next, rewind) = locked({ continueWithUpcoming(ring: ring, generation: generation) })
      {
        // Gapless: the next track's first frames go into the ring right behind this track's last.
        if rewind { _ = try? next.seek(toFrame: 0) }
        source = next
        frames = (try? source.read(into: scratch, frames: want)) ?? 0
      }
      let slice = UnsafeBufferPointer(rebasing: scratch[0..<(frames * ring.channels)])
      guard ring.push(slice, generation: generation, endOfTrack: frames == 0) else { break }
      wrote = true
      chunks += 1
      if frames == 0 { break }
      if chunks == handOverAfter {
        locked { if ring === self.ring { handOverLocked(ring) } }
        wrote = false
      }
      // A corked stream needs no more than the server's buffer takes and the first writes after the uncork:
      // the rest of the ring is decoded once it plays (the uncork pumps, and the pump refills). Decoding two
      // seconds ahead first would take the CPU from the start-up, or from a seek, that waits for the uncork.
      if chunks >= handOverAfter, ring.availableFrames >= corkedFill, !locked({ running }) { break }
    }
    // Also when nothing was written: a prefill that waits on a ring another fill completed is answered here.
    locked {
      guard ring === self.ring else { return }
      if wrote { handOverLocked(ring) } else { releasePrefillWaitersLocked(ring) }
    }
  }

  /// How much a fill decodes ahead while the stream is corked: the server's target buffer and two chunks.
  private var corkedFillFramesLocked: Int {
    Int(configuration.targetLatency * Double(sampleRate)) + 2 * 4096
  }

  /// Gives the server what the ring holds and answers the prefills it satisfies (decoding queue, lock held).
  private func handOverLocked(_ ring: SampleRing) {
    pumpLocked()
    releasePrefillWaitersLocked(ring)
  }

  /// At the current track's end (decoding queue, lock held): when a next track was offered, marks the
  /// boundary in the ring and returns that track's decoder, and whether it must be rewound first.
  private func continueWithUpcoming(ring: SampleRing, generation: UInt64) -> (any AudioDecoder, Bool)? {
    guard ring === self.ring, let upcoming, !feedingUpcoming, ring.markBoundary(generation: generation) else {
      return nil
    }
    feedingUpcoming = true
    defer { upcomingNeedsRewind = false }
    return (upcoming, upcomingNeedsRewind)
  }

  /// Moves on to the upcoming track once the server has played the boundary: from then on the position counts
  /// from its start, confirmations carry a new stream number, and the controller is told.
  private func advanceIfBoundaryPlayedLocked() {
    guard let boundary, let stream, let next = upcoming else { return }
    var usec: pa_usec_t = 0
    guard pa_stream_get_time(stream, &usec) == 0, usec >= boundary.streamTime else { return }
    let previous = streamNumber
    streamNumber += 1
    decoder = next
    upcoming = nil
    feedingUpcoming = false
    self.boundary = nil
    anchorSeconds = 0
    anchorStreamTime = boundary.streamTime
    writtenFrames -= boundary.writtenFrames
    let info = next.info
    positionFilter.reset(to: min(Double(usec - boundary.streamTime) / 1e6, info.duration))
    let props = pa_proplist_new()
    pa_proplist_sets(props, PA_PROP_MEDIA_NAME, info.displayTitle)
    pa_proplist_sets(props, PA_PROP_MEDIA_FILENAME, info.path)
    if let operation = pa_stream_proplist_update(stream, PA_UPDATE_REPLACE, props, nil, nil) {
      pa_operation_unref(operation)
    }
    pa_proplist_free(props)
    let confirmation = OutputConfirmation(
      position: positionFilter.position, time: Self.now(), running: running, stream: streamNumber)
    let handler = handler.withLock { $0 }
    handOff { handler?(.trackAdvanced(from: previous, confirmation, track: info)) }
  }

  /// Checks again just after the server's clock should have reached the boundary (write callbacks alone may
  /// come too seldom to notice it within a few milliseconds). Only while playing: a corked stream's clock
  /// stands still, and `start` schedules the check again.
  private func scheduleBoundaryCheckLocked() {
    guard running, let boundary, let stream else { return }
    var usec: pa_usec_t = 0
    let now = pa_stream_get_time(stream, &usec) == 0 ? usec : 0
    let wait = Double(boundary.streamTime > now ? boundary.streamTime - now : 0) / 1e6 + 0.002
    let expected = streamNumber
    DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [weak self] in
      guard let self else { return }
      self.locked {
        guard self.streamNumber == expected else { return }
        self.advanceIfBoundaryPlayedLocked()
        if self.streamNumber == expected { self.scheduleBoundaryCheckLocked() }
      }
    }
  }

  /// Resolves once a first buffer of audio is there, in the ring or already written to the server (or the
  /// whole rest of the track is). It does not wait for the ring to be full: the decoding queue hands the
  /// waiters over with its first chunks, so a start or a seek waits for 50 ms of audio, not for two seconds.
  private func prefill() -> Future<Void, PlayerError> {
    let (future, resolver) = Future<Void, PlayerError>.pending()
    let ready = locked { () -> Bool in
      guard let ring else {
        handOff { resolver.reject(.outputFailed(operation: "start", detail: "no stream is open")) }
        return false
      }
      if prefilledLocked(ring) { return true }
      prefillWaiters.append(resolver)
      // A fill normally is on its way (opening and seeking start one); this makes sure of it.
      scheduleFill(evenAboveTheMark: true)
      return false
    }
    // Resolved here, on the caller's thread and outside the lock: handing an audio that is already there to
    // the delivery executor cost a resume a thread hand-over before its uncork could even be sent.
    if ready { resolver.resolve() }
    return future
  }

  /// Enough audio to start: 50 ms in the ring or already in the server's buffer, or the end of the track.
  private func prefilledLocked(_ ring: SampleRing) -> Bool {
    let wanted = max(1, Int64(Double(sampleRate) * 0.05))
    return writtenFrames + Int64(ring.availableFrames) >= wanted || ring.fillState.endOfTrack
  }

  /// Runs `action` (lock held) once the open stream's ring holds its first audio, at once when it does already;
  /// with `false` when the stream goes first.
  private func whenPrefilledLocked(_ action: @escaping (Bool) -> Void) {
    guard let ring else { return action(false) }
    if prefilledLocked(ring) { return action(true) }
    prefillActions.append(action)
    scheduleFill(evenAboveTheMark: true)
  }

  /// Resolves the prefill waiters once the decoder has handed over enough audio (decoding queue, lock held).
  private func releasePrefillWaitersLocked(_ ring: SampleRing) {
    guard !prefillWaiters.isEmpty || !prefillActions.isEmpty, prefilledLocked(ring) else { return }
    let waiters = prefillWaiters
    prefillWaiters = []
    let actions = prefillActions
    prefillActions = []
    for action in actions { action(true) }
    if !waiters.isEmpty { handOff { for waiter in waiters { waiter.resolve() } } }
  }

  /// Seek and stop: cork if running, flush, move the decoder, refill, and uncork again when `resume` says so
  /// (nil: as it was).
  private func reposition(to seconds: Double, name: String, resume: Bool?) -> Future<OutputConfirmation, PlayerError> {
    let (future, resolver) = Future<OutputConfirmation, PlayerError>.pending()
    locked {
      guard let stream, let ring, let decoder, pa_stream_get_state(stream) == PA_STREAM_READY else {
        handOff { resolver.reject(.outputFailed(operation: name, detail: "no stream is open")) }
        return
      }
      let wasRunning = running
      let target = min(max(Int64((seconds * Double(sampleRate)).rounded()), 0), decoder.info.frames)
      cancelDrainLocked()
      ring.invalidate()
      running = false
      // Back into the current track: the next one, if it was being decoded already, starts over later.
      if feedingUpcoming {
        feedingUpcoming = false
        upcomingNeedsRewind = true
      }
      boundary = nil
      if wasRunning {
        issue(
          name + " (cork)", start: { done in pa_stream_cork(stream, 1, PulseOperation.streamCallback, done) },
          completion: { _ in }, failure: { _ in })
      }
      issue(
        name + " (flush)", start: { done in pa_stream_flush(stream, PulseOperation.streamCallback, done) },
        completion: { [self] ok in
          guard ok else {
            let error = PlayerError.outputFailed(operation: name, detail: lastErrorLocked())
            return handOff { resolver.reject(error) }
          }
          writtenFrames = 0
          refill(from: target, ring: ring, decoder: decoder)
          anchorAfterFlush(seconds: Double(target) / Double(sampleRate)) { [self] result in
            if case .failure(let error) = result { return handOff { resolver.reject(error) } }
            let restart = resume ?? wasRunning
            guard restart else {
              let confirmation = OutputConfirmation(
                position: anchorSeconds, time: Self.now(), running: false, stream: streamNumber)
              return handOff { self.resolve(resolver, confirmation) }
            }
            handOff {
              self.start().whenComplete { outcome in
                switch outcome {
                case .success(let confirmation): self.resolve(resolver, confirmation)
                case .failure(let error): resolver.reject(error)
                case .cancelled: resolver.reject(.cancelled)
                }
              }
            }
          }
        }, failure: { error in self.handOff { resolver.reject(error) } })
    }
    return future
  }

  /// After a flush the server's read index is where new audio will start: record the stream time there as
  /// the anchor for `seconds`.
  private func anchorAfterFlush(seconds: Double, _ done: @escaping (Result<Void, PlayerError>) -> Void) {
    guard let stream else { return done(.failure(.outputLost(detail: "the stream is gone"))) }
    issue(
      "timing", start: { ticket in pa_stream_update_timing_info(stream, PulseOperation.streamCallback, ticket) },
      completion: { [self] _ in
        var usec: pa_usec_t = 0
        if pa_stream_get_time(stream, &usec) == 0 { anchorStreamTime = usec }
        anchorSeconds = seconds
        positionFilter.reset(to: seconds)
        done(.success(()))
      }, failure: { error in done(.failure(error)) })
  }

  /// Requests a timing update and confirms the position it gives.
  private func timingUpdate(_ name: String) -> Future<OutputConfirmation, PlayerError> {
    let (future, resolver) = Future<OutputConfirmation, PlayerError>.pending()
    locked {
      guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else {
        handOff { resolver.reject(.outputFailed(operation: name, detail: "no stream is open")) }
        return
      }
      issue(
        name, start: { done in pa_stream_update_timing_info(stream, PulseOperation.streamCallback, done) },
        completion: { [self] _ in
          let confirmation = OutputConfirmation(
            position: positionLocked(), time: Self.now(), running: running, stream: streamNumber)
          handOff { self.resolve(resolver, confirmation) }
        }, failure: { error in self.handOff { resolver.reject(error) } })
    }
    return future
  }

  /// The played position: the anchor plus the stream time since it, through the ``PositionFilter`` (never
  /// backwards between seeks, never faster than real time, within the track). On `-PA_ERR_NODATA` (no timing
  /// information yet) the last position holds.
  private func positionLocked() -> Double {
    advanceIfBoundaryPlayedLocked()
    guard let stream, let info = decoder?.info else { return positionFilter.position }
    var usec: pa_usec_t = 0
    guard pa_stream_get_time(stream, &usec) == 0 else { return positionFilter.position }
    let elapsed = usec >= anchorStreamTime ? Double(usec - anchorStreamTime) / 1e6 : 0
    // Nothing can have been heard that was not written: a latency the server got wrong (PipeWire 0.3 passes a
    // negative delay on unclamped) must not carry the position past the audio. On a sink that renders in long
    // blocks (a null sink with no reader), a new stream's audio waits for the block in progress: the position
    // then stays at what was written, which is all that can have played.
    let written = Double(max(writtenFrames, 0)) / Double(sampleRate)
    return positionFilter.update(
      raw: anchorSeconds + min(elapsed, written), at: Self.now(), running: running, duration: info.duration)
  }

  // MARK: - Plumbing

  /// Issues a stream operation on the open stream; `then` runs (lock held) when it succeeded.
  private func streamOperation(
    _ name: String, _ start: @escaping (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?,
    then: @escaping () -> OutputConfirmation?
  ) -> Future<OutputConfirmation, PlayerError> {
    let (future, resolver) = Future<OutputConfirmation, PlayerError>.pending()
    locked {
      guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else {
        handOff { resolver.reject(.outputFailed(operation: name, detail: "no stream is open")) }
        return
      }
      issue(
        name, start: { done in start(stream, done) },
        completion: { [self] ok in
          guard ok else {
            let error = PlayerError.outputFailed(operation: name, detail: lastErrorLocked())
            return handOff { resolver.reject(error) }
          }
          let confirmation =
            then()
            ?? OutputConfirmation(
              position: positionLocked(), time: Self.now(), running: running, stream: streamNumber)
          handOff { self.resolve(resolver, confirmation) }
        }, failure: { error in self.handOff { resolver.reject(error) } })
    }
    return future
  }

  /// Starts a libpulse operation whose callback is a ``PulseOperation`` trampoline. Lock held.
  @discardableResult
  private func issue(
    _ name: String, start: (UnsafeMutableRawPointer) -> OpaquePointer?,
    completion: @escaping (Bool) -> Void, failure: @escaping (PlayerError) -> Void,
    volumeRead: ((pa_volume_t) -> Void)? = nil
  ) -> PulseOperation? {
    let operation = PulseOperation(name: name, completion: completion, failure: failure, volumeRead: volumeRead)
    operation.owner = self
    let userdata = Unmanaged.passRetained(operation).toOpaque()
    guard let handle = start(userdata) else {
      Unmanaged<PulseOperation>.fromOpaque(userdata).release()
      failure(.outputFailed(operation: name, detail: lastErrorLocked()))
      return nil
    }
    operation.handle = handle
    pending[ObjectIdentifier(operation)] = operation
    return operation
  }

  /// Called by the trampoline on the mainloop thread.
  func operationFinished(_ operation: PulseOperation, success: Bool) {
    guard pending.removeValue(forKey: ObjectIdentifier(operation)) != nil else { return }
    if let handle = operation.handle { pa_operation_unref(handle) }
    operation.handle = nil
    operation.completion(success)
  }

  private func lastErrorLocked() -> String {
    guard let context else { return "not connected" }
    return String(cString: pa_strerror(pa_context_errno(context)))
  }

  /// Runs `body` with the mainloop lock held. Never called on the mainloop thread itself.
  private func locked<T>(_ body: () -> T) -> T {
    pa_threaded_mainloop_lock(mainloop)
    defer { pa_threaded_mainloop_unlock(mainloop) }
    return body()
  }

  /// Resolves a stream operation's future (on `settleQueue`); when its command has already stopped waiting
  /// (a missed deadline cancelled it), the server's confirmation is reported as an event instead, so that the
  /// published state does not miss a change the server made.
  private func resolve(
    _ resolver: Future<OutputConfirmation, PlayerError>.Resolver, _ confirmation: OutputConfirmation
  ) {
    if !resolver.resolve(confirmation) { report(.confirmedLate(confirmation)) }
  }

  /// Hands an event to the controller (on `settleQueue`).
  private func report(_ event: OutputEvent) {
    let handler = handler.withLock { $0 }
    handler?(event)
  }

  /// Hands `body` (settling futures, reporting events) to the delivery context, off the mainloop thread.
  private func handOff(_ body: @escaping @Sendable () -> Void) {
    (delivery.withLock { $0 } ?? .queue(settleQueue)).execute(body)
  }

  /// Settles futures and reports events on `executor` from now on (the controller's): the answer then wakes
  /// one thread, which goes on with the controller's work, instead of a thread of `settleQueue` that hands it
  /// over to another. `executor` must not run jobs in the call: they would run on the mainloop thread.
  public func deliver(on executor: ExecutionContext) {
    delivery.withLock { $0 = executor }
  }

  static func paVolume(_ percent: Int) -> pa_volume_t {
    pa_volume_t(Double(PA_VOLUME_NORM) * Double(min(max(percent, 0), 100)) / 100)
  }

  static func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }
}

/// A pause whose cork the server acknowledged, waiting for the timing update answered right after it.
private final class CorkOutcome {
  /// Confirms the pause with the current timing (set by `pause`, called once).
  var answer: (() -> Void)?
  /// Fails the pause (the stream went away before the timing update came).
  var fail: ((PlayerError) -> Void)?
  /// The pause's future has been settled.
  var answered = false
}

/// A stream made by ``PulseOutput/prepare(_:playingWhen:)`` before the first `open`: for which decoder, settled
/// when the server has created it (or failed to), and for a stream prepared to play, when it acknowledged the
/// uncork. Its `var`s are read and written with the mainloop lock held only,
/// like the output's own.
private final class PreparedStream: @unchecked Sendable {
  /// Held, not only identified: compared by identity with the decoder of the first `open`.
  let decoder: any AudioDecoder
  let ready: Future<Void, PlayerError>
  let resolver: Future<Void, PlayerError>.Resolver
  /// The stream number the output gave it once created.
  var stream: UInt64 = 0
  /// An `open` of something else came first: the stream is not to be made.
  var dropped = false
  /// Whether the stream is to start playing before an `open` takes it, and whether it may yet.
  var start: Start
  /// The server has created the stream.
  var created = false
  /// Its first audio is in (only followed for a stream prepared to play).
  var prefilled = false
  /// `resolver` has been settled, or the uncork that settles it was issued.
  var finished = false

  /// What a prepared stream's start waits for.
  enum Start {
    /// It stays corked until an `open` takes it.
    case none
    /// It plays once its `playingWhen` future has succeeded, which it has not yet.
    case waiting
    /// The future succeeded: it plays once its first audio is in.
    case cleared
    /// The future failed: it stays corked.
    case refused
  }

  init(decoder: any AudioDecoder, playing: Bool) {
    self.decoder = decoder
    start = playing ? .waiting : .none
    (ready, resolver) = Future<Void, PlayerError>.pending()
  }
}
