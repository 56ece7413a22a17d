import Futures
import Synchronization

/// A deterministic audio output on a ``VirtualClock``: it "plays" by moving a position as virtual time passes,
/// records which frames it played, and lets a test hold, delay, fail or drop each acknowledgement.
///
/// It is also a product feature: `splay run --output simulated` checks a playback script's expectations with no
/// sound server, and a 10-minute script takes no wall time.
///
/// The effect of an operation happens when it is acknowledged, as with a real server: a held `pause` leaves
/// the stream playing until ``releaseHeld()``. A dropped acknowledgement means the operation took effect but the
/// answer never came, the worst case for honesty; the controller's deadline and re-read handle it.
public final class SimulatedOutput: AudioOutput {
  private struct Stream {
    var number: UInt64
    var decoder: any AudioDecoder
    var frame: Int64
    var running: Bool
    var since: VirtualClock.Instant
    var endToken: UInt64?
  }

  private struct State {
    var stream: Stream?
    var volume = 100
    var muted = false
    /// How each operation is acknowledged, by ``Operation/slot``.
    var policies = [Acknowledgement](repeating: .immediate, count: Operation.allCases.count)
    var oneShots: [Acknowledgement] = []
    var held: [@Sendable () -> Void] = []
    var played: [PlayedSegment] = []
    var handler: (@Sendable (OutputEvent) -> Void)?
    var generation: UInt64 = 0
    var lost = false
    var pending: [UInt64: @Sendable (PlayerError) -> Void] = [:]
    var nextPending: UInt64 = 0
    var streams: UInt64 = 0
  }

  /// The clock that drives playback and delayed acknowledgements.
  public let clock: VirtualClock
  private let state = Lock(State())

  /// Creates an output on `clock`; every acknowledgement is immediate until told otherwise.
  public init(clock: VirtualClock = VirtualClock()) {
    self.clock = clock
  }

  /// Where audio goes: nowhere real.
  public var destination: String { "simulated" }

  /// Sets how `operation` is acknowledged from now on.
  public func setAcknowledgement(_ acknowledgement: Acknowledgement, for operation: Operation) {
    state.withLock { $0.policies[operation.slot] = acknowledgement }
  }

  /// Answers the next operations (other than `status` queries) with these acknowledgements, one each, in
  /// order, before falling back to the per-operation settings: a test can shape exactly one command's
  /// answers without touching what the output does on its own afterwards.
  public func pushAcknowledgements(_ acknowledgements: [Acknowledgement]) {
    state.withLock { $0.oneShots += acknowledgements }
  }

  /// Acknowledges every held operation, in the order they were requested.
  public func releaseHeld() {
    let held = state.withLock { s in
      defer { s.held.removeAll() }
      return s.held
    }
    for action in held { action() }
  }

  /// How many acknowledgements are held.
  public var heldCount: Int { state.withLock { $0.held.count } }

  /// The frames played so far, merged into runs.
  public var played: [PlayedSegment] { state.withLock { $0.played } }

  /// The volume in effect at the output.
  public var volume: Int { state.withLock { $0.volume } }

  /// Whether the stream is running (uncorked) right now.
  public var isRunning: Bool { state.withLock { $0.stream?.running ?? false } }

  /// The position the output has played, in seconds, right now.
  public var currentPosition: Double {
    state.withLock { s in
      guard let stream = s.stream else { return 0 }
      return Double(frame(of: stream, at: clock.now)) / Double(stream.decoder.info.sampleRate)
    }
  }

  /// Simulates the loss of the server: every unanswered operation fails with `error`, the stream is gone and
  /// a `lost` event is sent. Later operations fail with `error` until ``restore()``.
  public func loseConnection(_ error: PlayerError = .outputLost(detail: "simulated server loss")) {
    let (failures, handler) = state.withLock { s in
      settleStream(&s, at: clock.now)
      if let token = s.stream?.endToken { clock.cancel(token) }
      s.stream = nil
      s.lost = true
      s.held.removeAll()
      s.generation += 1
      defer { s.pending.removeAll() }
      return (Array(s.pending.values), s.handler)
    }
    for fail in failures { fail(error) }
    handler?(.lost(error))
  }

  /// Lets the simulated server answer again after ``loseConnection(_:)``.
  public func restore() {
    state.withLock { $0.lost = false }
  }

  // MARK: AudioOutput

  /// Sets the event receiver.
  public func setEventHandler(_ handler: @escaping @Sendable (OutputEvent) -> Void) {
    state.withLock { $0.handler = handler }
  }

  /// Opens a corked stream at `seconds`.
  public func open(_ decoder: any AudioDecoder, at seconds: Double, volume: Int?) -> Future<
    OutputConfirmation, PlayerError
  > {
    acknowledge(.open) { s, now in
      if let token = s.stream?.endToken { self.clock.cancel(token) }
      let rate = Double(decoder.info.sampleRate)
      let frame = min(max(Int64((seconds * rate).rounded()), 0), decoder.info.frames)
      s.streams += 1
      s.stream = Stream(number: s.streams, decoder: decoder, frame: frame, running: false, since: now, endToken: nil)
      s.volume = volume ?? s.volume
      var confirmation = self.confirmation(s, now)
      confirmation.volume = s.volume
      return confirmation
    }
  }

  /// Uncorks.
  public func start() -> Future<OutputConfirmation, PlayerError> {
    move(.start) { stream in stream.running = true }
  }

  /// Corks.
  public func pause() -> Future<OutputConfirmation, PlayerError> {
    move(.pause) { stream in stream.running = false }
  }

  /// Moves to `seconds`, keeping running or corked.
  public func seek(to seconds: Double) -> Future<OutputConfirmation, PlayerError> {
    move(.seek) { stream in
      let rate = Double(stream.decoder.info.sampleRate)
      stream.frame = min(max(Int64((seconds * rate).rounded()), 0), stream.decoder.info.frames)
    }
  }

  /// Corks and rewinds to 0.
  public func stop() -> Future<OutputConfirmation, PlayerError> {
    move(.stop) { stream in
      stream.running = false
      stream.frame = 0
    }
  }

  /// A stream operation: what played until now is accounted for, `change` moves the stream, and the end of the
  /// track is scheduled anew.
  private func move(
    _ operation: Operation, _ change: @escaping @Sendable (inout Stream) -> Void
  ) -> Future<OutputConfirmation, PlayerError> {
    acknowledge(operation) { s, now in
      try self.requireStream(s)
      self.settleStream(&s, at: now)
      if s.stream != nil { change(&s.stream!) }
      self.scheduleEnd(&s, now: now)
      return self.confirmation(s, now)
    }
  }

  /// Sets the volume.
  public func setVolume(_ percent: Int) -> Future<Int, PlayerError> {
    acknowledge(.volume) { s, _ in
      s.volume = percent
      return percent
    }
  }

  /// Sets the mute flag, acknowledged as a volume is.
  public func setMute(_ muted: Bool) -> Future<Bool, PlayerError> {
    acknowledge(.volume) { s, _ in
      s.muted = muted
      return muted
    }
  }

  /// Whether the output is muted.
  public var muted: Bool { state.withLock { $0.muted } }

  /// Reports the real state.
  public func status() -> Future<OutputConfirmation, PlayerError> {
    acknowledge(.status) { s, now in
      try self.requireStream(s)
      self.settleStream(&s, at: now)
      return self.confirmation(s, now)
    }
  }

  /// Closes the stream.
  public func close() -> Future<Void, PlayerError> {
    acknowledge(.close) { s, now in
      self.settleStream(&s, at: now)
      if let token = s.stream?.endToken { self.clock.cancel(token) }
      s.stream = nil
    }
  }

  // MARK: Internals

  /// Runs `effect` when the acknowledgement policy for `operation` says the server answers.
  private func acknowledge<T: Sendable>(
    _ operation: Operation, _ effect: @escaping @Sendable (inout State, VirtualClock.Instant) throws -> T
  ) -> Future<T, PlayerError> {
    // The usual case, an immediate answer: the effect and the answer happen in this call, so there is nothing
    // to keep for a later loss of the server or a cancellation.
    let immediate = state.withLock { s -> Result<T, PlayerError>? in
      guard !s.lost, operation == .status || s.oneShots.isEmpty, s.policies[operation.slot] == .immediate else {
        return nil
      }
      return apply(effect, of: operation, to: &s)
    }
    switch immediate {
    case .success(let value): return .resolved(value)
    case .failure(let error): return .rejected(error)
    case nil: break
    }
    let (future, resolver) = Future<T, PlayerError>.pending()
    let (policy, lost, generation, pendingID) = state.withLock { s in
      s.nextPending += 1
      s.pending[s.nextPending] = { error in resolver.reject(error) }
      let policy =
        operation != .status && !s.oneShots.isEmpty ? s.oneShots.removeFirst() : s.policies[operation.slot]
      return (policy, s.lost, s.generation, s.nextPending)
    }
    if lost {
      state.withLock { _ = $0.pending.removeValue(forKey: pendingID) }
      resolver.reject(.outputLost(detail: "simulated server loss"))
      return future
    }
    resolver.onCancel { [weak self] in self?.state.withLock { _ = $0.pending.removeValue(forKey: pendingID) } }
    let answer: @Sendable (Bool) -> Void = { [self] reply in
      let result = state.withLock { s -> Result<T, PlayerError>? in
        // A dropped answer keeps its entry, so that a later loss of the server still fails the future.
        guard s.generation == generation, s.pending[pendingID] != nil else { return nil }
        if reply { s.pending[pendingID] = nil }
        return apply(effect, of: operation, to: &s)
      }
      guard reply, let result else { return }
      switch result {
      case .success(let value): resolver.resolve(value)
      case .failure(let error): resolver.reject(error)
      }
    }
    switch policy {
    case .immediate:
      answer(true)
    case .after(let delay):
      clock.schedule(at: clock.now.advanced(by: delay)) { answer(true) }
    case .hold:
      state.withLock { $0.held.append { answer(true) } }
    case .fail(let error):
      state.withLock { _ = $0.pending.removeValue(forKey: pendingID) }
      resolver.reject(error)
    case .drop:
      answer(false)
    }
    return future
  }

  /// Carries out `effect` at the simulated server now (lock held), with its error as the answer's.
  private func apply<T>(
    _ effect: (inout State, VirtualClock.Instant) throws -> T, of operation: Operation, to s: inout State
  ) -> Result<T, PlayerError> {
    do {
      return .success(try effect(&s, clock.now))
    } catch let error as PlayerError {
      return .failure(error)
    } catch {
      return .failure(.outputFailed(operation: operation.rawValue, detail: "\(error)"))
    }
  }

  private func requireStream(_ s: State) throws {
    guard s.stream != nil else { throw PlayerError.outputFailed(operation: "stream", detail: "no stream is open") }
  }

  private func frame(of stream: Stream, at now: VirtualClock.Instant) -> Int64 {
    guard stream.running else { return stream.frame }
    let (seconds, attoseconds) = stream.since.duration(to: now).components
    let rate = Int64(stream.decoder.info.sampleRate)
    // In integers, to the nanosecond the clock schedules in: through a Double product, the end of a track
    // scheduled for its last frame sometimes counted one frame less, so the track "ended" a frame early and
    // a resume from there waited for a frame that no instant of `idle()` played (found by the model test,
    // seed 318558979333723).
    let frames = seconds * rate + (attoseconds / 1_000_000_000) * rate / 1_000_000_000
    // A live stream has no last frame: it plays on.
    if stream.decoder.info.isLive { return stream.frame + frames }
    return min(stream.frame + frames, stream.decoder.info.frames)
  }

  /// Brings the stream's position up to `now`, recording the frames that played meanwhile.
  private func settleStream(_ s: inout State, at now: VirtualClock.Instant) {
    guard let stream = s.stream else { return }
    let reached = frame(of: stream, at: now)
    if reached > stream.frame {
      let path = stream.decoder.info.path
      if let last = s.played.last, last.path == path, last.endFrame == stream.frame {
        s.played[s.played.count - 1].endFrame = reached
      } else {
        s.played.append(PlayedSegment(path: path, startFrame: stream.frame, endFrame: reached))
      }
    }
    s.stream?.frame = reached
    s.stream?.since = now
  }

  /// Schedules the end-of-track event for a running stream (and forgets the old one).
  private func scheduleEnd(_ s: inout State, now: VirtualClock.Instant) {
    guard let stream = s.stream else { return }
    if let token = stream.endToken { clock.cancel(token) }
    s.stream?.endToken = nil
    let info = stream.decoder.info
    guard stream.running, !info.isLive else { return }
    let generation = s.generation
    let token = clock.schedule(
      at: now.advanced(by: .nanoseconds(Self.nanoseconds(toPlay: info.frames - stream.frame, at: info.sampleRate)))
    ) {
      [self] in
      let (handler, finished) = state.withLock { s -> ((@Sendable (OutputEvent) -> Void)?, OutputConfirmation?) in
        guard s.generation == generation, s.stream != nil else { return (nil, nil) }
        settleStream(&s, at: clock.now)
        s.stream?.running = false
        s.stream?.endToken = nil
        return (s.handler, confirmation(s, clock.now))
      }
      if let finished { handler?(.trackFinished(finished)) }
    }
    s.stream?.endToken = token
  }

  /// The nanoseconds that `frames` take at `rate`, rounded up, so that the last frame has played by then.
  static func nanoseconds(toPlay frames: Int64, at rate: Int) -> Int64 {
    let (product, overflow) = frames.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return Int64((Double(frames) / Double(rate) * 1e9).rounded(.up)) }
    return (product + Int64(rate) - 1) / Int64(rate)
  }

  private func confirmation(_ s: State, _ now: VirtualClock.Instant) -> OutputConfirmation {
    guard let stream = s.stream else { return OutputConfirmation(position: 0, time: nanoseconds(now), running: false) }
    return OutputConfirmation(
      position: Double(stream.frame) / Double(stream.decoder.info.sampleRate), time: nanoseconds(now),
      running: stream.running, streamNumber: stream.number)
  }

  private func nanoseconds(_ instant: VirtualClock.Instant) -> UInt64 {
    let c = instant.offset.components
    return UInt64(max(0, c.seconds)) * 1_000_000_000 + UInt64(max(0, c.attoseconds) / 1_000_000_000)
  }
}
