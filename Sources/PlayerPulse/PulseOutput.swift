import CPulseAudio
import Dispatch
import Futures
import PlayerCore
import Synchronization

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
/// Mutable state is confined: every `var` below is read and written only with the mainloop lock held (or
/// on the mainloop thread, which holds it while running callbacks), which the compiler cannot check — hence
/// `@unchecked Sendable`. Methods that need the lock end in `Locked`; ``locked(_:)`` takes it, and
/// ``assertLocked(function:)`` checks it in debug builds. What belongs to one stream is a ``StreamSession``,
/// held only while the stream exists.
///
/// The connection (``PulseConnection``) and the volume (``VolumeControl``) are parts of their own. The other jobs
/// live in files of their own: the stream (`+Stream`), start, pause, seek and stop (`+Transport`), the audio path
/// (`+Feeding`), timing, position and what the server's clock reaches: a gapless boundary (``GaplessBoundary``) and
/// a live stream's titles (`+Timing`), the server's buffer (``ServerBuffer``), the stream prepared before the
/// first `open` (`+Prepare`, with ``PreparedStart``). Operations are issued through ``PulseRequests``, and
/// futures settle and events go through ``OutputDelivery``.
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

  let configuration: Configuration
  /// The libpulse mainloop and its lock (see ``ThreadedMainloop``).
  let loop: ThreadedMainloop
  /// Where futures settle and events go (see ``OutputDelivery``).
  let delivery = OutputDelivery(label: "splay.pulse.settle")
  /// Decodes into the stream's ring (see ``RingFeeder``).
  let feeder = RingFeeder()

  // Guarded by the mainloop lock; the methods that touch them say so with a `Locked` suffix.
  /// The context, connecting with a deadline, and losing it (see ``PulseConnection``).
  let connection: PulseConnection
  /// The stream's buffer at the server and the timing schedule (see ``ServerBuffer``).
  let buffer: ServerBuffer
  /// The libpulse operations in flight.
  let requests: PulseRequests
  /// The stream and what feeds it, while one exists (see ``StreamSession``).
  var session: StreamSession?
  /// Timing updates the server answered, for every stream of the output: tests check that a paused stream asks
  /// for none.
  var timingUpdates = 0
  /// The stream's volume and mute flag at the server, and the changes others make (see ``VolumeControl``).
  let volume: VolumeControl
  /// The current stream's number, and the stream prepared for the first `open` (see ``StreamLineage``).
  var lineage = StreamLineage()

  /// Creates an output; it connects on the first `open` or `prepare` (or at ``connectEarly()``).
  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
    buffer = ServerBuffer(
      targetLatency: configuration.targetLatency, steadyLatency: configuration.steadyLatency)
    loop = ThreadedMainloop()
    connection = PulseConnection(
      loop: loop, server: configuration.server, timeout: configuration.connectTimeout)
    requests = PulseRequests(loop: loop, connection: connection)
    volume = VolumeControl(connection: connection, requests: requests, delivery: delivery)
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
  public init(configuration: Configuration, adopting connection: Connection) {
    self.configuration = configuration
    buffer = ServerBuffer(
      targetLatency: configuration.targetLatency, steadyLatency: configuration.steadyLatency)
    loop = ThreadedMainloop(adopting: connection.mainloop)
    self.connection = PulseConnection(
      loop: loop, server: configuration.server, timeout: configuration.connectTimeout)
    requests = PulseRequests(loop: loop, connection: self.connection)
    volume = VolumeControl(connection: self.connection, requests: requests, delivery: delivery)
    locked {
      hookUpConnectionLocked()
      self.connection.adopt(connection.context)
    }
  }

  deinit {
    loop.shutDown {
      let error = PlayerError.outputLost(detail: "the output was closed")
      teardownStreamLocked()
      // The hooks hold the output weakly, and it is going: what they would do is done here.
      connectionClosingLocked(error)
      connection.disconnect(error: error)
    }
  }

  /// What the connection's state changes do to the output (lock held). The hooks hold the output weakly: the
  /// connection is the output's.
  private func hookUpConnectionLocked() {
    volume.currentStream = { [weak self] in
      guard let session = self?.session, session.isReady else { return nil }
      return (session.stream, session.ring.channels)
    }
    connection.hooks = PulseConnection.Hooks(
      ready: { [weak self] context in
        self?.volume.subscribeLocked(context)
        self?.buffer.identify(context)
      },
      lost: { [weak self] error in
        guard let self else { return }
        teardownStreamLocked()
        connection.disconnect(error: error)
        delivery.announce(.lost(error))
      },
      closing: { [weak self] error in self?.connectionClosingLocked(error) })
  }

  /// The context is about to go (lock held): what is armed on it or waits on it goes first, as libpulse will
  /// never call it back.
  private func connectionClosingLocked(_ error: PlayerError) {
    session?.timers.cancelAll()
    requests.fail(with: error)
    session?.drainEnded()
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
    let adopted = locked { lineage.takePrepared(for: decoder, at: seconds, volume: volume) }
    guard let adopted else { return openAnew(decoder, at: seconds, volume: volume) }
    return openPrepared(adopted)
  }

  private func openAnew(_ decoder: any AudioDecoder, at seconds: Double, volume: Int?) -> Future<
    OutputConfirmation, PlayerError
  > {
    connect().flatMap { [self] _ in
      let (future, resolver) = Future<Void, PlayerError>.pending()
      let number = locked {
        createStreamLocked(for: decoder, at: seconds, volume: volume) { result in
          self.delivery.handOff { resolver.settle(with: Outcome(result)) }
        }
        return lineage.current
      }
      return future.flatMap { [self] _ in prefill() }.map { [self] _ in
        // Where the ring really starts: the prefilled audio was decoded from there.
        let (device, level, start) = locked {
          (deviceNameLocked, self.volume.level, session?.clock.anchorSeconds ?? seconds)
        }
        return OutputConfirmation(
          position: start, time: Self.now(), running: false, streamNumber: number, device: device, volume: level)
      }
    }
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
    locked { session == nil ? nil : (volume.level, volume.muted) }
  }

  /// The server's index of the stream (its sink input) while one is open: what another connection reads it by.
  public var sinkInputIndex: UInt32? {
    locked { session?.sinkInputIndex }
  }

  /// What the server says of the open stream now, nil without a ready stream: tests check the buffer policy.
  var serverReadings: ServerReadings? { locked { session.flatMap { ServerReadings($0.stream) } } }

  /// Whether the connected server said it is PipeWire's pulse server.
  var serverIsPipeWire: Bool { locked { buffer.serverIsPipeWire } }

  /// Same-format tracks follow each other in one stream.
  public var playsGapless: Bool { true }

  /// Takes `decoder` as the track after the current one when it has the same sample format and the stream is
  /// still `stream`; it is decoded into the ring after the current track's last frame.
  public func prepareNext(_ decoder: any AudioDecoder, following stream: UInt64) -> Future<Bool, PlayerError> {
    let accepted = locked { () -> Bool in
      guard lineage.current == stream, let offer = session?.offerNext(decoder) else { return false }
      switch offer {
      case .refused: return false
      case .queued: return true
      case .continuesNow:
        // The end that the drain waited for is not the stream's end any more.
        cancelDrainLocked()
        scheduleFillLocked(evenAboveTheMark: true)
        return true
      }
    }
    return .resolved(accepted)
  }

  /// Closes the stream, keeping the connection.
  public func close() -> Future<Void, PlayerError> {
    locked { teardownStreamLocked() }
    return .resolved(())
  }

  /// Runs `body` with the mainloop lock held. Never called on the mainloop thread itself.
  func locked<T>(_ body: () -> T) -> T {
    loop.locked(body)
  }

  /// Checks, in debug builds, the rule a `Locked` suffix states: the caller holds the mainloop lock, through
  /// ``locked(_:)`` or as the mainloop thread running a callback.
  func assertLocked(function: StaticString = #function) {
    loop.assertLocked(function: function)
  }

  /// Settles futures and reports events on `executor` from now on (the controller's): the answer then wakes
  /// one thread, which goes on with the controller's work, instead of a thread of the output's own queue that hands it
  /// over to another. `executor` must not run jobs in the call: they would run on the mainloop thread.
  public func deliver(on executor: ExecutionContext) {
    delivery.deliver(on: executor)
  }

  static func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }
}
