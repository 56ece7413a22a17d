import CPulseAudio
import Futures
import PlayerCore

#if canImport(Glibc)
  import Glibc
#endif

/// Plays through a PulseAudio (or PipeWire-pulse) server with libpulse's asynchronous API; every future it
/// returns resolves on the server's acknowledgement of the operation.
///
/// Threads: one `pa_threaded_mainloop` runs libpulse. Its callbacks copy audio and record acknowledgements;
/// they never decode, wait or run user code — futures are settled from the consumer's executor
/// (``deliver(on:)``, the controller's) or else from a queue of its own (``OutputDelivery``), so a continuation can call straight back
/// into this output. Decoding runs on a ``DecodeQueue``, into a ``SampleRing``.
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
/// The output is a facade over parts that each own their state, all touched only with the mainloop lock held (or
/// on the mainloop thread, which holds it while running callbacks), which the compiler cannot check — hence
/// `@unchecked Sendable`: the connection (``PulseConnection``), the volume (``VolumeControl``), the server's
/// buffer (``ServerBuffer``), the operations in flight (``PulseRequests``) and the current stream
/// (``CurrentStream``, with its ``StreamSession``), on which act its life at the server (``StreamLifecycle``), its
/// audio path (``StreamFeed``), its clock (``StreamTiming``), the transport (``StreamTransport``) and the stream
/// prepared before the first `open` (``StreamPreparer``). Futures settle and events go through
/// ``OutputDelivery``.
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
    /// The stream's buffer in seconds once audio has flowed for a moment with nothing asked, on PulseAudio (not
    /// PipeWire): the server then wakes splay about once every quarter of it, and lets the sink hold up to a
    /// quarter. A cork goes back to `targetLatency`; at or below `targetLatency` the buffer stays as it is.
    public var steadyLatency: Double

    /// Creates a configuration.
    public init(
      server: String? = nil, sink: String? = nil, targetLatency: Double = 0.2, connectTimeout: Double = 2,
      steadyLatency: Double = 8
    ) {
      self.server = server
      self.sink = sink
      self.targetLatency = targetLatency
      self.connectTimeout = connectTimeout
      self.steadyLatency = steadyLatency
    }
  }

  /// The libpulse mainloop and its lock (see ``ThreadedMainloop``).
  let loop: ThreadedMainloop
  /// Where futures settle and events go (see ``OutputDelivery``).
  let delivery = OutputDelivery(label: "splay.pulse.settle")
  /// The context, connecting with a deadline, and losing it (see ``PulseConnection``).
  let connection: PulseConnection
  /// The stream's buffer at the server and the timing schedule (see ``ServerBuffer``).
  let buffer: ServerBuffer
  /// The libpulse operations in flight.
  let requests: PulseRequests
  /// The stream's volume and mute flag at the server, and the changes others make (see ``VolumeControl``).
  let volume: VolumeControl
  /// The stream while one exists, and which one is current.
  let current = CurrentStream()
  /// Creating the stream, its callbacks, tearing it down.
  let lifecycle: StreamLifecycle
  /// Decoding into the ring, writing to the server, prefill and drain.
  let feed: StreamFeed
  /// Timing updates, the position, and what the server's clock reaches.
  let timing: StreamTiming
  /// Start, pause, seek, stop and status.
  let transport: StreamTransport
  /// The stream prepared before the first `open`.
  let preparer: StreamPreparer

  /// Creates an output; it connects on the first `open` or `prepare` (or at ``connectEarly()``).
  public convenience init(configuration: Configuration = Configuration()) {
    self.init(configuration: configuration, loop: ThreadedMainloop())
  }

  /// Makes the parts on `loop`, none connected yet.
  private init(configuration: Configuration, loop: ThreadedMainloop) {
    self.loop = loop
    buffer = ServerBuffer(
      targetLatency: configuration.targetLatency, steadyLatency: configuration.steadyLatency)
    connection = PulseConnection(
      loop: loop, server: configuration.server, timeout: configuration.connectTimeout)
    requests = PulseRequests(loop: loop, connection: connection)
    volume = VolumeControl(connection: connection, requests: requests, delivery: delivery)
    let parts = OutputParts(
      loop: loop, current: current, connection: connection, buffer: buffer, requests: requests, delivery: delivery)
    timing = StreamTiming(parts: parts)
    feed = StreamFeed(parts: parts, timing: timing, targetLatency: configuration.targetLatency)
    lifecycle = StreamLifecycle(
      parts: parts, volume: volume, feed: feed, timing: timing, sink: configuration.sink)
    transport = StreamTransport(parts: parts, feed: feed, timing: timing)
    preparer = StreamPreparer(
      parts: parts, volume: volume, lifecycle: lifecycle, feed: feed, timing: timing, transport: transport)
    locked { hookUpConnectionLocked() }
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
  public convenience init(configuration: Configuration, adopting connection: Connection) {
    self.init(configuration: configuration, loop: ThreadedMainloop(adopting: connection.mainloop))
    locked { self.connection.adopt(connection.context) }
  }

  deinit {
    loop.lockedFromAnyThread {
      let error = PlayerError.outputLost(detail: "the output was closed")
      lifecycle.teardownLocked()
      // The hooks hold the output weakly, and it is going: what they would do is done here.
      connectionClosingLocked(error)
      connection.disconnect(error: error)
    }
  }

  /// What the connection's state changes do to the output (lock held). The hooks hold the output weakly: the
  /// connection is the output's.
  private func hookUpConnectionLocked() {
    volume.currentStream = { [weak self] in
      guard let session = self?.current.session, session.isReady else { return nil }
      return (session.stream, session.ring.channels)
    }
    connection.hooks = PulseConnection.Hooks(
      ready: { [weak self] context in
        self?.volume.subscribeLocked(context)
        self?.buffer.identify(context)
      },
      lost: { [weak self] error in
        guard let self else { return }
        lifecycle.teardownLocked()
        connection.disconnect(error: error)
        delivery.announce(.lost(error))
      },
      closing: { [weak self] error in self?.connectionClosingLocked(error) })
  }

  /// The context is about to go (lock held): what is armed on it or waits on it goes first, as libpulse will
  /// never call it back.
  private func connectionClosingLocked(_ error: PlayerError) {
    current.session?.timers.cancelAll()
    requests.fail(with: error)
    current.session?.drainEnded()
    buffer.disconnected()
  }

  /// Connects if nothing is under way; settles once connected or once connecting failed.
  func connect() -> Future<Void, PlayerError> {
    let (future, resolver) = Future<Void, PlayerError>.pending()
    locked {
      connection.whenConnected { result in self.delivery.handOff { resolver.settle(with: Outcome(result)) } }
    }
    return future
  }

  /// Starts connecting to the server now instead of at the first `open`, so that the handshake overlaps with
  /// what the caller does meanwhile (parsing arguments, probing files): the first sound comes sooner. A
  /// failure is not reported here; the first `open` reports it (and tries again). Does nothing while a
  /// connection is made or under way (an adopted one, for example): nobody would wait for the answer, and
  /// handing it over to a thread of its own would only take a CPU from the start-up.
  public func connectEarly() {
    locked {
      guard connection.context == nil else { return }
      connection.whenConnected { _ in }
    }
  }

  /// `pulse:` and the server address tried.
  public var destination: String { "pulse:" + connection.serverName }

  /// Sets the receiver of events.
  public func setEventHandler(_ handler: @escaping @Sendable (OutputEvent) -> Void) {
    delivery.setEventHandler(handler)
  }

  // MARK: - Operations

  /// Connects if needed, then creates a corked stream for the decoder's format at `seconds`, or takes the one
  /// ``prepare(_:playingWhen:)`` made for this very decoder at 0 s and the server's volume, which may be
  /// running: the confirmation says so.
  public func open(_ decoder: any AudioDecoder, at seconds: Double, volume: Int?) -> Future<
    OutputConfirmation, PlayerError
  > {
    let adopted = locked { current.lineage.takePrepared(for: decoder, at: seconds, volume: volume) }
    guard let adopted else { return openAnew(decoder, at: seconds, volume: volume) }
    return preparer.open(adopted)
  }

  private func openAnew(_ decoder: any AudioDecoder, at seconds: Double, volume: Int?) -> Future<
    OutputConfirmation, PlayerError
  > {
    connect().flatMap { [self] _ in
      let (future, resolver) = Future<Void, PlayerError>.pending()
      let number = locked {
        lifecycle.createLocked(for: decoder, at: seconds, volume: volume) { result in
          self.delivery.handOff { resolver.settle(with: Outcome(result)) }
        }
        return current.lineage.current
      }
      return future.flatMap { [self] _ in feed.prefill() }.map { [self] _ in
        // Where the ring really starts: the prefilled audio was decoded from there.
        let (device, level, start) = locked {
          (current.session?.deviceName, self.volume.level, current.session?.clock.anchorSeconds ?? seconds)
        }
        return OutputConfirmation(
          position: start, time: Self.now(), running: false, streamNumber: number, device: device, volume: level)
      }
    }
  }

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
    preparer.prepare(decoder, playingWhen: cleared)
  }

  /// Sets the stream's volume (PulseAudio's cubic scale, as `pactl` percentages).
  public func setVolume(_ percent: Int) -> Future<Int, PlayerError> {
    let (future, resolver) = Future<Int, PlayerError>.pending()
    locked { volume.setLocked(percent, resolver) }
    return future
  }

  /// Sets the stream's mute flag at the server; with no stream, takes it for the next one.
  public func setMute(_ muted: Bool) -> Future<Bool, PlayerError> {
    let (future, resolver) = Future<Bool, PlayerError>.pending()
    locked { volume.setMuteLocked(muted, resolver) }
    return future
  }

  /// The stream's volume and mute flag as last read from the server or acknowledged by it.
  public var serverVolume: (level: Int, muted: Bool)? {
    locked { current.session == nil ? nil : (volume.level, volume.muted) }
  }

  /// The server's index of the stream (its sink input) while one is open: what another connection reads it by.
  public var sinkInputIndex: UInt32? {
    locked { current.session?.sinkInputIndex }
  }

  /// What the server says of the open stream now, nil without a ready stream: tests check the buffer policy.
  var serverReadings: ServerReadings? { locked { current.session.flatMap { ServerReadings($0.stream) } } }

  /// Whether the connected server said it is PipeWire's pulse server.
  var serverIsPipeWire: Bool { locked { buffer.serverIsPipeWire } }

  /// Same-format tracks follow each other in one stream.
  public var playsGapless: Bool { true }

  /// Takes `decoder` as the track after the current one when it has the same sample format and the stream is
  /// still `stream`; it is decoded into the ring after the current track's last frame.
  public func prepareNext(_ decoder: any AudioDecoder, following stream: UInt64) -> Future<Bool, PlayerError> {
    let accepted = locked { () -> Bool in
      guard current.lineage.current == stream, let offer = current.session?.offerNext(decoder) else { return false }
      switch offer {
      case .refused: return false
      case .queued: return true
      case .continuesNow:
        // The end that the drain waited for is not the stream's end any more.
        feed.cancelDrainLocked()
        feed.scheduleFillLocked(evenAboveTheMark: true)
        return true
      }
    }
    return .resolved(accepted)
  }

  /// Uncorks once the ring holds audio; resolves with the position from the first timing update the server
  /// answers after the uncork (see ``StreamClock/isStale``).
  public func start() -> Future<OutputConfirmation, PlayerError> { transport.start() }

  /// Corks, and confirms with the position from the first timing update the server answers after the cork:
  /// that update is requested right behind the cork, so the position it gives is where the audio stopped.
  public func pause() -> Future<OutputConfirmation, PlayerError> { transport.pause() }

  /// Moves to `seconds`: cork, flush, refill from the new position, uncork if it was playing.
  public func seek(to seconds: Double) -> Future<OutputConfirmation, PlayerError> {
    transport.reposition(to: seconds, name: "seek", resume: nil)
  }

  /// Corks and flushes, positioned at the start of the track.
  public func stop() -> Future<OutputConfirmation, PlayerError> {
    transport.reposition(to: 0, name: "stop", resume: false)
  }

  /// Reads the stream's position and state from a fresh timing update.
  public func status() -> Future<OutputConfirmation, PlayerError> { transport.status() }

  /// Closes the stream, keeping the connection.
  public func close() -> Future<Void, PlayerError> {
    locked { lifecycle.teardownLocked() }
    return .resolved(())
  }

  /// Runs `body` with the mainloop lock held. Never called on the mainloop thread itself.
  func locked<T>(_ body: () -> T) -> T {
    loop.locked(body)
  }

  /// Settles futures and reports events on `executor` from now on (the controller's): the answer then wakes
  /// one thread, which goes on with the controller's work, instead of a thread of the output's own queue that hands it
  /// over to another. `executor` must not run jobs in the call: they would run on the mainloop thread.
  public func deliver(on executor: ExecutionContext) {
    delivery.deliver(on: executor)
  }

  /// How many timing updates the server has answered so far: tests check that a paused stream asks for none.
  var timingUpdatesAnswered: Int { locked { timing.updatesAnswered } }

  /// The monotonic clock in ns, which confirmations are timed by.
  static func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }
}
