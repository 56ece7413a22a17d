import Dispatch
import Futures
import Synchronization

/// The player: commands go in, futures of confirmed states come out.
///
/// Commands run one at a time, in arrival order, on the controller's own serial queue. Each command asks the
/// ``PlayerStateMachine`` what it needs, performs that step on the ``AudioOutput``, and publishes a new state
/// only when the output confirmed the step. The future returned by ``send(_:)`` then resolves with that state.
///
/// ```swift
/// let player = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())
/// try await player.send(.load(["song.flac"])).value
/// let state = try await player.play().value   // resolves once PulseAudio confirmed the uncork
/// ```
///
/// Every command future settles: a step the output does not confirm within the configured deadline fails
/// with `timeout` (after the controller re-read the output's real state), and a seek that is still waiting
/// in the queue when a newer seek arrives settles as cancelled.
public final class PlayerController: Sendable {
  /// Work waiting for the controller's queue: a caller's command or something the output reported.
  enum QueuedWork: Sendable {
    case command(PlayerCommand, Future<PlayerState, PlayerError>.Resolver)
    case refresh(Future<PlayerState, PlayerError>.Resolver)
    case recover(Future<PlayerState, PlayerError>.Resolver)
    case restore(Restoration, Future<PlayerState, PlayerError>.Resolver)
    case event(OutputEvent)
    /// A new state stream: it starts from the current state, taken while no other job can publish.
    case addStream(AsyncStream<PlayerState>.Continuation)
    /// Closes the output once the job in flight has finished (``shutdown()``).
    case close(Future<Void, PlayerError>.Resolver)
  }

  struct Core: ~Copyable {
    var machine: PlayerStateMachine
    var jobs: [QueuedWork] = []
    var head = 0
    var jobInFlight = false
    /// While the job in flight waits for the output: tells whether that answer is still outstanding.
    var awaited: (@Sendable () -> Bool)?
    /// While the job in flight waits for the output: stops waiting (``shutdown()`` does not wait for it).
    var abandonAwaited: (@Sendable () -> Void)?
    var closed = false
    /// Waiting for the controller to become quiescent (``PlayerController/quiescence()``).
    var quiescenceWaiters: [Future<Void, Never>.Resolver] = []

    /// Nothing can happen until the output answers or time passes (``PlayerController/isQuiescent``): no job
    /// is left, or the job in flight waits for the output (the jobs behind it wait for it in turn).
    var isQuiescent: Bool { jobInFlight ? awaited?() == true : head >= jobs.count }

    /// The waiters to tell, when the controller is quiescent now; they are forgotten here.
    mutating func takeQuiescenceWaiters() -> [Future<Void, Never>.Resolver] {
      guard !quiescenceWaiters.isEmpty, isQuiescent else { return [] }
      defer { quiescenceWaiters = [] }
      return quiescenceWaiters
    }

    /// Nothing is left to run: the next command starts the controller again.
    mutating func release() {
      awaited = nil
      abandonAwaited = nil
      jobInFlight = false
      jobs.removeAll(keepingCapacity: jobs.capacity <= 64)
      head = 0
    }
  }

  let output: any AudioOutput
  let decoders: any AudioDecoderFactory
  let configuration: ControllerConfiguration
  let queue = DispatchQueue(label: "splay.controller")
  /// Where answers of the output are taken up (``ControllerConfiguration/answers``, or `queue`).
  let answers: ExecutionContext
  let answersOnQueue: Bool
  let onContinuousClock: Bool
  let core: Lock<Core>
  let observers = StateObservers()

  /// Creates a controller that plays through `output`, opening files with `decoders`.
  public init(
    output: any AudioOutput,
    decoders: any AudioDecoderFactory,
    configuration: ControllerConfiguration = ControllerConfiguration(),
    initialState: PlayerState = .initial
  ) {
    self.output = output
    self.decoders = decoders
    self.configuration = configuration
    self.core = Lock(Core(machine: PlayerStateMachine(state: initialState)))
    self.answers = configuration.answers ?? .queue(queue)
    self.answersOnQueue = configuration.answers == nil
    self.onContinuousClock = configuration.clock is ContinuousClock
    output.deliver(on: answers)
    output.setEventHandler { [weak self] event in self?.enqueue(.event(event)) }
  }

  /// The state last published.
  public var state: PlayerState {
    core.withLock { $0.machine.state }
  }

  /// The command "back" means `now` (``PlayerStateMachine/previousOrRestart(at:)``): `previous` early in a
  /// track, a seek to its start later.
  public func previousOrRestart(at now: UInt64) -> PlayerCommand {
    core.withLock { $0.machine.previousOrRestart(at: now) }
  }

  /// Sends a command. The future resolves with the state published once the output confirmed it, or fails
  /// with the reason it could not be done (in which case nothing was changed).
  ///
  /// A `seek` cancels every older `seek` still waiting in the queue. Cancelling the returned future before the
  /// command starts removes it; once the output has been asked, the step goes on there and only the wait
  /// stops: what the server then confirms is published as it arrives (``OutputEvent/confirmedLate(_:)``).
  @discardableResult
  public func send(_ command: PlayerCommand) -> Future<PlayerState, PlayerError> {
    let (future, resolver) = Future<PlayerState, PlayerError>.pending()
    var superseded: [Future<PlayerState, PlayerError>.Resolver] = []
    // One lock for the whole hand-over: a command costs the caller as little as possible.
    let admission = core.withLock { core -> Admission in
      guard !core.closed else { return .refused }
      guard core.jobInFlight || core.head < core.jobs.count else {
        core.jobInFlight = true
        return .runHere
      }
      if case .seek = command {
        for i in core.head..<core.jobs.count {
          if case .command(.seek, let older) = core.jobs[i] { superseded.append(older) }
        }
      }
      core.jobs.append(.command(command, resolver))
      guard !core.jobInFlight else { return .queued }
      core.jobInFlight = true
      return .startQueue
    }
    switch admission {
    case .refused: resolver.reject(.invalidState(command: command.name, state: "shut down"))
    case .runHere: start(command, resolver)
    case .startQueue: queue.async { self.runNext() }
    case .queued: break
    }
    // Cancelled, they are skipped when their turn comes (`run` checks).
    for older in superseded { older.settle(with: .cancelled) }
    return future
  }

  /// What `send` does with a command.
  private enum Admission {
    /// The controller is shut down.
    case refused
    /// The controller was idle: the caller's thread starts the command (see ``start(_:_:)``).
    case runHere
    /// Queued behind the job in flight.
    case queued
    /// Queued first: the controller's queue must be woken.
    case startQueue
  }

  /// Starts a command that found the controller idle on the caller's thread, up to the request to the output:
  /// waking the controller's queue only to issue a cork costs a thread hand-over (about 50 µs on this
  /// machine), as long as the rest of the command. Only steps that ask the output without blocking run here,
  /// and nothing is settled or published here: the output's answer is taken up where answers always are
  /// (``ControllerConfiguration/answers``), so callbacks and observers still run there. Anything else (opening a file, a command that completes or is
  /// refused without the output) goes to the queue as if it had been queued. The caller holds the controller
  /// (`jobInFlight`), so commands sent meanwhile queue up behind it.
  private func start(_ command: PlayerCommand, _ resolver: Future<PlayerState, PlayerError>.Resolver) {
    let decision = core.withLock { $0.machine.decide(command) }
    guard case .perform(let step) = decision, step.asksWithoutBlocking else {
      core.withLock { $0.jobs.insert(.command(command, resolver), at: $0.head) }
      queue.async { self.runNext() }
      return
    }
    let work = perform(step, for: command.name)
    if !work.isSettled { resolver.onCancel { work.cancel() } }
    work.whenComplete(on: answers) { [self] outcome in
      proceed(finishStep(step, command: command.name, outcome: outcome, resolver: resolver))
    }
    // The command waits for the output now, in the caller's call: nothing else would say so.
    announceQuiescence()
  }

  /// Asks the output where playback really is, publishes that if it differs, and resolves with the state.
  ///
  /// Published positions are confirmations, so between two commands the published position of a playing
  /// track is older than the audio; `refresh` gets a current confirmation (``ConfirmedPosition/estimated(at:)``
  /// is the cheap alternative for a view). Queued behind the commands sent before it.
  public func refresh() -> Future<PlayerState, PlayerError> {
    let (future, resolver) = Future<PlayerState, PlayerError>.pending()
    enqueue(.refresh(resolver))
    return future
  }

  /// After the output lost its server (`failed(output-lost)`), reopens the current track corked at the last
  /// confirmed position, so that the state reads `paused` there and `play` resumes. Fails with the output's
  /// error while the server is still away, and with `invalid-state` when there is nothing to recover (another
  /// command already brought the player back, or nothing was loaded). `splay serve` calls it with backoff.
  public func recover() -> Future<PlayerState, PlayerError> {
    let (future, resolver) = Future<PlayerState, PlayerError>.pending()
    enqueue(.recover(resolver))
    return future
  }

  /// A saved session to bring back (``restore(queue:index:at:)``).
  struct Restoration: Sendable {
    var queue: [String]
    var index: Int
    var seconds: Double
  }

  /// Brings back a saved session: replaces the queue with `queue` and opens track `index` corked at `seconds`,
  /// so that the state reads `paused` there and `play` continues exactly there. Resolves once the output
  /// confirmed the stream; fails as `load` does when the file cannot be opened or the output is away.
  public func restore(queue: [String], index: Int, at seconds: Double) -> Future<PlayerState, PlayerError> {
    let (future, resolver) = Future<PlayerState, PlayerError>.pending()
    enqueue(.restore(Restoration(queue: queue, index: index, seconds: seconds), resolver))
    return future
  }

  /// True when no command or event is waiting or in flight (tests and virtual time use it to know that the
  /// controller has caught up).
  public var isIdle: Bool {
    core.withLock { !$0.jobInFlight && $0.head >= $0.jobs.count }
  }

  /// True when nothing can happen until the output answers or time passes: the controller is idle, or the
  /// job in flight waits for an answer of the output that has not come (whatever is queued behind it waits
  /// too). Virtual time uses it to know when it may move on.
  public var isQuiescent: Bool {
    core.withLock { $0.isQuiescent }
  }

  /// Resolves once the controller is quiescent (``isQuiescent``): at once when it is, otherwise when its last
  /// job is done or the job in flight starts waiting for the output. Virtual time moves on only then, so that it
  /// never moves while the controller still works, without polling for it.
  public func quiescence() -> Future<Void, Never> {
    let (future, resolver) = Future<Void, Never>.pending()
    let now = core.withLock { core -> Bool in
      if core.isQuiescent { return true }
      core.quiescenceWaiters.append(resolver)
      return false
    }
    if now { resolver.resolve() }
    return future
  }

  /// Tells the waiters of ``quiescence()`` when the controller has become quiescent.
  func announceQuiescence() {
    for waiter in core.withLock({ $0.takeQuiescenceWaiters() }) { waiter.resolve() }
  }

  /// Records that the job in flight now waits on `future`. Asking the future itself (rather than keeping a
  /// flag that a callback clears) leaves no instant in which the answer has come but the controller still
  /// looks as if it were waiting.
  func waitingOn<T>(_ future: Future<T, PlayerError>) -> Future<T, PlayerError> {
    core.withLock {
      $0.awaited = { !future.isSettled }
      $0.abandonAwaited = { future.cancel() }
    }
    return future
  }

  /// Subscribes `body` to every published state, in order, starting with the next one. `body` runs on the
  /// controller's side, one call at a time: on its queue, or where ``ControllerConfiguration/answers`` says
  /// when the state comes from an answer of the output. It must return quickly; keep the returned
  /// observation to stay subscribed.
  public func observe(_ body: @escaping @Sendable (PlayerState) -> Void) -> StateObservation {
    let id = observers.add(body)
    return StateObservation { [observers] in observers.remove(id) }
  }

  /// An async sequence of every published state, in order, starting with the current state.
  public func states() -> AsyncStream<PlayerState> {
    AsyncStream(bufferingPolicy: .unbounded) { continuation in
      // As a job: states are published by the job in flight only, which may run off the queue.
      enqueue(.addStream(continuation))
    }
  }

  /// How many observers are subscribed (for leak checks).
  public var observerCount: Int { observers.count }

  /// Stops taking commands, fails the waiting ones, stops waiting for the output's answer to the one in
  /// flight (a command then settles as cancelled, a reconnection fails), closes the output stream and ends
  /// every state stream. The future resolves once the output is closed; nothing reopens it afterwards.
  public func shutdown() -> Future<Void, PlayerError> {
    let (future, resolver) = Future<Void, PlayerError>.pending()
    let (waiting, abandon, startQueue) = core.withLock { core -> ([QueuedWork], (@Sendable () -> Void)?, Bool) in
      core.closed = true
      let rest = Array(core.jobs[core.head...])
      core.jobs.removeAll()
      core.head = 0
      // The close waits its turn: closing under a job in flight let that job reopen a stream afterwards.
      core.jobs.append(.close(resolver))
      guard !core.jobInFlight else { return (rest, core.abandonAwaited, false) }
      core.jobInFlight = true
      return (rest, nil, true)
    }
    waiting.forEach(refuse)
    abandon?()
    if startQueue { queue.async { self.runNext() } }
    return future
  }

  /// Fails a job that comes after ``shutdown()``.
  func refuse(_ job: QueuedWork) {
    switch job {
    case .command(let command, let resolver):
      resolver.reject(.invalidState(command: command.name, state: "shut down"))
    case .refresh(let resolver): resolver.reject(.invalidState(command: "status", state: "shut down"))
    case .recover(let resolver): resolver.reject(.invalidState(command: "reconnect", state: "shut down"))
    case .restore(_, let resolver): resolver.reject(.invalidState(command: "restore", state: "shut down"))
    case .addStream(let continuation): continuation.finish()
    case .event: break
    case .close(let resolver): closeOutput(resolver)
    }
  }

  /// The last job: closes the output stream and ends the state streams.
  func closeOutput(_ resolver: Future<Void, PlayerError>.Resolver) {
    output.close().whenComplete { [observers] _ in
      observers.finish()
      resolver.resolve()
    }
  }
}
