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
/// let player = PlayerController(output: PulseOutput())
/// try await player.send(.load(["song.flac"])).value
/// let state = try await player.play().value   // resolves once PulseAudio confirmed the uncork
/// ```
///
/// Every command future settles: a step the output does not confirm within the configured deadline fails
/// with `timeout` (after the controller re-read the output's real state), and a seek that is still waiting
/// in the queue when a newer seek arrives settles as cancelled.
public final class PlayerController: Sendable {
  /// Work waiting for the controller's queue: a caller's command or something the output reported.
  private enum Job: Sendable {
    case command(PlayerCommand, Future<PlayerState, PlayerError>.Resolver)
    case refresh(Future<PlayerState, PlayerError>.Resolver)
    case recover(Future<PlayerState, PlayerError>.Resolver)
    case event(OutputEvent)
    /// A new state stream: it starts from the current state, taken while no other job can publish.
    case addStream(AsyncStream<PlayerState>.Continuation)
    /// Closes the output once the job in flight has finished (``shutdown()``).
    case close(Future<Void, PlayerError>.Resolver)
  }

  private struct Core: ~Copyable {
    var machine: PlayerStateMachine
    var jobs: [Job] = []
    var head = 0
    var running = false
    /// While the job in flight waits for the output: tells whether that answer is still outstanding.
    var awaited: (@Sendable () -> Bool)?
    /// While the job in flight waits for the output: stops waiting (``shutdown()`` does not wait for it).
    var abandonAwaited: (@Sendable () -> Void)?
    var closed = false
    /// The queue index and stream of the last track offered to the output for gapless playback.
    var offered: (index: Int, following: UInt64)?

    /// Nothing is left to run: the next command starts the controller again.
    mutating func release() {
      awaited = nil
      abandonAwaited = nil
      running = false
      jobs.removeAll(keepingCapacity: jobs.capacity <= 64)
      head = 0
    }
  }

  private let output: any AudioOutput
  private let decoders: any AudioDecoderFactory
  private let configuration: ControllerConfiguration
  private let queue = DispatchQueue(label: "splay.controller")
  /// Where answers of the output are taken up (``ControllerConfiguration/answers``, or `queue`).
  private let answers: ExecutionContext
  private let answersOnQueue: Bool
  private let onContinuousClock: Bool
  private let core: Lock<Core>
  private let observers = StateObservers()

  /// Creates a controller that plays through `output`, opening files with `decoders`.
  public init(
    output: any AudioOutput,
    decoders: any AudioDecoderFactory = StandardDecoderFactory(),
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
      guard core.running || core.head < core.jobs.count else {
        core.running = true
        return .runHere
      }
      if case .seek = command {
        for i in core.head..<core.jobs.count {
          if case .command(.seek, let older) = core.jobs[i] { superseded.append(older) }
        }
      }
      core.jobs.append(.command(command, resolver))
      guard !core.running else { return .queued }
      core.running = true
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
  /// (`running`), so commands sent meanwhile queue up behind it.
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
      if finishStep(step, command: command.name, outcome: outcome, resolver: resolver) == .done { goOn() }
    }
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

  /// True when no command or event is waiting or in flight (tests and virtual time use it to know that the
  /// controller has caught up).
  public var isIdle: Bool {
    core.withLock { !$0.running && $0.head >= $0.jobs.count }
  }

  /// True when nothing can happen until the output answers or time passes: the controller is idle, or the
  /// job in flight waits for an answer of the output that has not come. Virtual time uses it to know when
  /// it may move on.
  public var isQuiescent: Bool {
    core.withLock { $0.head >= $0.jobs.count && (!$0.running || $0.awaited?() == true) }
  }

  /// Records that the job in flight now waits on `future`. Asking the future itself (rather than keeping a
  /// flag that a callback clears) leaves no instant in which the answer has come but the controller still
  /// looks as if it were waiting.
  private func waitingOn<T>(_ future: Future<T, PlayerError>) -> Future<T, PlayerError> {
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
    let (waiting, abandon, startQueue) = core.withLock { core -> ([Job], (@Sendable () -> Void)?, Bool) in
      core.closed = true
      let rest = Array(core.jobs[core.head...])
      core.jobs.removeAll()
      core.head = 0
      // The close waits its turn: closing under a job in flight let that job reopen a stream afterwards.
      core.jobs.append(.close(resolver))
      guard !core.running else { return (rest, core.abandonAwaited, false) }
      core.running = true
      return (rest, nil, true)
    }
    waiting.forEach(refuse)
    abandon?()
    if startQueue { queue.async { self.runNext() } }
    return future
  }

  /// Fails a job that comes after ``shutdown()``.
  private func refuse(_ job: Job) {
    switch job {
    case .command(let command, let resolver):
      resolver.reject(.invalidState(command: command.name, state: "shut down"))
    case .refresh(let resolver): resolver.reject(.invalidState(command: "status", state: "shut down"))
    case .recover(let resolver): resolver.reject(.invalidState(command: "reconnect", state: "shut down"))
    case .addStream(let continuation): continuation.finish()
    case .event: break
    case .close(let resolver): closeOutput(resolver)
    }
  }

  /// The last job: closes the output stream and ends the state streams.
  private func closeOutput(_ resolver: Future<Void, PlayerError>.Resolver) {
    output.close().whenComplete { [observers] _ in
      observers.finish()
      resolver.resolve()
    }
  }

  // MARK: - The serial queue

  /// Queues `job`; once the controller is shut down, refuses it instead (events are dropped) and returns false.
  @discardableResult
  private func enqueue(_ job: Job) -> Bool {
    let (added, start) = core.withLock { core -> (Bool, Bool) in
      if core.closed { return (false, false) }
      core.jobs.append(job)
      guard !core.running else { return (true, false) }
      core.running = true
      return (true, true)
    }
    if start { queue.async { self.runNext() } }
    if !added { refuse(job) }
    return added
  }

  /// Takes the next job; runs on `queue`. When the job finishes (possibly later, on an acknowledgement),
  /// it calls `runNext` again, so exactly one job is in flight.
  /// Whether the job just handled is done (take the next one now) or waits for the output (whose answer
  /// calls ``runNext()`` again).
  private enum Progress {
    case done
    case waiting
  }

  /// Runs jobs until one has to wait for the output or none is left. A loop rather than recursion, so that
  /// thousands of commands answered at once do not deepen the stack.
  private func runNext() {
    while true {
      if !core.withLock({ $0.closed }) { offerUpcomingIfDue() }
      guard let job = takeJob() else { return }
      let progress: Progress
      switch job {
      case .close(let resolver):
        closeOutput(resolver)
        progress = .done
      case .command(let command, let resolver): progress = run(command, resolver)
      case .event(let event): progress = handle(event)
      case .refresh(let resolver): progress = refresh(resolver)
      case .recover(let resolver): progress = recover(resolver)
      case .addStream(let continuation):
        continuation.yield(state)
        observers.add(continuation)
        progress = .done
      }
      if progress == .waiting { return }
    }
  }

  /// Opens the track after the current one and offers it to the output, once per track and stream, so that
  /// it can follow without a gap. Nothing is published: the output reports `trackAdvanced` when the boundary
  /// has been played. A file that cannot be opened is left to the usual path, which reports and skips it when
  /// the current track ends.
  private func offerUpcomingIfDue() {
    let due = core.withLock { core -> (path: String, following: UInt64)? in
      guard offerIsDue(core), let upcoming = core.machine.upcoming else { return nil }
      core.offered = (upcoming.index, upcoming.following)
      return (upcoming.path, upcoming.following)
    }
    guard let due, let decoder = try? decoders.open(due.path) else { return }
    _ = output.prepareNext(decoder, following: due.following)
  }

  /// Goes on after a job finished where answers are taken up: with the next jobs right here when that is the
  /// controller's queue; otherwise on the queue (where opening a file may block) when anything is left to do,
  /// or, with nothing waiting, by releasing the controller here, without waking the queue.
  private func goOn() {
    if answersOnQueue { return runNext() }
    let released = core.withLock { core -> Bool in
      guard core.head >= core.jobs.count, !offerIsDue(core) else { return false }
      core.release()
      return true
    }
    if !released { queue.async { self.runNext() } }
  }

  private func offerIsDue(_ core: borrowing Core) -> Bool {
    guard output.playsGapless, let upcoming = core.machine.upcoming else { return false }
    return core.offered?.index != upcoming.index || core.offered?.following != upcoming.following
  }

  private func takeJob() -> Job? {
    core.withLock { core -> Job? in
      core.awaited = nil
      guard core.head < core.jobs.count else {
        core.release()
        return nil
      }
      let job = core.jobs[core.head]
      core.head += 1
      if core.head > 256, core.head * 2 > core.jobs.count {
        core.jobs.removeFirst(core.head)
        core.head = 0
      }
      return job
    }
  }

  /// Continues with `body` once `future` settles: at once when it already has (an output that answered in the
  /// call, the simulated one), otherwise where answers are taken up when it comes.
  private func whenSettled<T>(
    _ future: Future<T, PlayerError>, _ body: @escaping @Sendable (Outcome<T, PlayerError>) -> Progress
  ) -> Progress {
    if let outcome = future.outcome { return body(outcome) }
    future.whenComplete(on: answers) { [self] outcome in
      if body(outcome) == .done { goOn() }
    }
    return .waiting
  }

  private func refresh(_ resolver: Future<PlayerState, PlayerError>.Resolver) -> Progress {
    guard state.status.hasOpenTrack else {
      resolver.resolve(state)
      return .done
    }
    let status = underDeadline(waitingOn(output.status()), .timeout(command: "status", seconds: deadlineSeconds))
    return whenSettled(status) { [self] outcome in
      switch outcome {
      case .success(let confirmation):
        let published = core.withLock { $0.machine.reconcile(confirmation) }
        finish(resolver, with: .success(state), publishing: published)
      case .failure(let error):
        resolver.reject(error)
      case .cancelled:
        resolver.settle(with: .cancelled)
      }
      return .done
    }
  }

  private func recover(_ resolver: Future<PlayerState, PlayerError>.Resolver) -> Progress {
    guard let step = core.withLock({ $0.machine.recovery }) else {
      resolver.reject(.invalidState(command: "reconnect", state: state.status.name))
      return .done
    }
    let work = perform(step, for: "reconnect")
    return whenSettled(work) { [self] outcome in
      finishStep(step, command: "reconnect", outcome: outcome, resolver: resolver)
    }
  }

  /// `future` under the deadline, failing with `error`. On the continuous clock (outside tests and the
  /// simulated output) through the `timeout` that takes no clock: opening the configuration's `any Clock` and
  /// the generic timer behind it were a third of the cost of sending a command (profiled cold).
  private func underDeadline<T>(_ future: Future<T, PlayerError>, _ error: PlayerError) -> Future<T, PlayerError> {
    onContinuousClock
      ? future.timeout(configuration.deadline, error: error)
      : future.timeout(configuration.deadline, clock: configuration.clock, error: error)
  }

  private var deadlineSeconds: Double {
    Double(configuration.deadline.components.seconds) + Double(configuration.deadline.components.attoseconds) / 1e18
  }

  private func run(_ command: PlayerCommand, _ resolver: Future<PlayerState, PlayerError>.Resolver) -> Progress {
    guard !resolver.isCancelled else { return .done }
    // Put back by a command that had found the controller idle (``start(_:_:)``) as the shutdown came.
    guard !core.withLock({ $0.closed }) else {
      refuse(.command(command, resolver))
      return .done
    }
    let decision = core.withLock { $0.machine.decide(command) }
    switch decision {
    case .reject(let error):
      resolver.reject(error)
      return .done
    case .complete(let next):
      let (published, current) = core.withLock { core in
        (next.flatMap { core.machine.apply($0) }, core.machine.state)
      }
      finish(resolver, with: .success(current), publishing: published)
      return .done
    case .perform(let step):
      let work = perform(step, for: command.name)
      if !work.isSettled { resolver.onCancel { work.cancel() } }
      return whenSettled(work) { [self] outcome in
        finishStep(step, command: command.name, outcome: outcome, resolver: resolver)
      }
    }
  }

  private func handle(_ event: OutputEvent) -> Progress {
    if case .trackFailed(let error, _) = event { configuration.onTrackSkipped?(error) }
    let reaction = core.withLock { $0.machine.handle(event) }
    switch reaction {
    case .publish(let state):
      observers.publish(state)
      return .done
    case .ignore:
      return .done
    case .perform(let step):
      return advance(step)
    }
  }

  /// Moves to the next track on the output's behalf (the previous one finished). A track that cannot be
  /// opened is reported and skipped; when none is left, the queue has ended. `failures` counts the tracks
  /// skipped on the way, so that a repeated queue of files that all fail ends after one round.
  private func advance(_ step: OutputStep, failures: Int = 0) -> Progress {
    perform(step, for: "next").whenComplete(on: answers) { [self] outcome in
      guard case .failure(let error) = outcome, error.isFileError,
        case .open(let queue, let index, _, let then) = step, !core.withLock({ $0.closed })
      else {
        if finishStep(step, command: "next", outcome: outcome, resolver: nil) == .done { goOn() }
        return
      }
      configuration.onTrackSkipped?(error)
      // A file that fails is not tried again when repeating one track: skipping moves on as `next` does.
      if failures + 1 < queue.count, let next = core.withLock({ $0.machine.step(from: index, by: 1) }) {
        let retry = OutputStep.open(queue: queue, index: next, seconds: 0, then: then)
        if advance(retry, failures: failures + 1) == .done { goOn() }
      } else {
        if let published = core.withLock({ $0.machine.endQueue() }) { observers.publish(published) }
        goOn()
      }
    }
    return .waiting
  }

  /// Applies the outcome of a step and settles the command's future.
  private func finishStep(
    _ step: OutputStep, command: String, outcome: Outcome<StepResult, PlayerError>,
    resolver: Future<PlayerState, PlayerError>.Resolver?
  ) -> Progress {
    switch outcome {
    case .success(let result):
      let (published, current) = core.withLock { core in (core.machine.confirm(step, result), core.machine.state) }
      finish(resolver, with: .success(current), publishing: published)
      return .done
    case .failure(.timeout(let name, let seconds)):
      // The output may have done the step after all: publish what it really does before failing.
      let status = underDeadline(waitingOn(output.status()), .timeout(command: name, seconds: seconds))
      return whenSettled(status) { [self] status in
        var published: PlayerState?
        if case .success(let confirmation) = status {
          published = core.withLock { $0.machine.reconcile(confirmation) }
        }
        finish(resolver, with: .failure(.timeout(command: name, seconds: seconds)), publishing: published)
        return .done
      }
    case .failure(let error):
      finish(resolver, with: .failure(error), publishing: nil)
      return .done
    case .cancelled:
      resolver?.settle(with: .cancelled)
      return .done
    }
  }

  /// Settles the caller's future before telling observers, so that a reply always precedes the events it
  /// caused (the control protocol promises that).
  private func finish(
    _ resolver: Future<PlayerState, PlayerError>.Resolver?, with result: Result<PlayerState, PlayerError>,
    publishing published: PlayerState?
  ) {
    switch result {
    case .success(let state): resolver?.resolve(state)
    case .failure(let error): resolver?.reject(error)
    }
    if let published { observers.publish(published) }
  }

  /// Performs one output step under the deadline.
  private func perform(_ step: OutputStep, for command: String) -> Future<StepResult, PlayerError> {
    let seconds = deadlineSeconds
    let work: Future<StepResult, PlayerError>
    switch step {
    case .open(let queue, let index, let at, let then):
      work = open(queue[index], at: at, then: then)
    case .start:
      work = output.start().map { .stream($0, track: nil) }
    case .pause:
      work = output.pause().map { .stream($0, track: nil) }
    case .seek(let target):
      work = output.seek(to: target).map { .stream($0, track: nil) }
    case .seekBy(let delta, let duration):
      work = output.status().flatMap { [output] now in
        output.seek(to: min(max(now.position + delta, 0), duration))
      }.map { .stream($0, track: nil) }
    case .stop:
      work = output.stop().map { .stream($0, track: nil) }
    case .volume(let level):
      work = output.setVolume(level).map { .volume($0) }
    }
    // Answered in the call (the simulated output, or a refusal): no deadline to arm, no timer task to start.
    if work.isSettled { return work }
    return waitingOn(underDeadline(work, .timeout(command: command, seconds: seconds)))
  }

  private func open(_ path: String, at seconds: Double, then: OutputStep.StatusAfterOpen) -> Future<
    StepResult, PlayerError
  > {
    let decoder: any AudioDecoder
    do {
      decoder = try decoders.open(path)
    } catch {
      return .rejected(error)
    }
    let volume = core.withLock { $0.machine.volumeIsExplicit ? $0.machine.state.volume : nil }
    let opened = output.open(decoder, at: seconds, volume: volume)
    let info = decoder.info
    guard then == .playing else { return opened.map { .stream($0, track: info) } }
    // A stream prepared to play may be running already: its confirmation is the start's.
    return opened.flatMap { [output] opened in opened.running ? .resolved(opened) : output.start() }.map {
      .stream($0, track: info)
    }
  }
}

extension PlayerController {
  /// Starts or resumes playback.
  @discardableResult public func play() -> Future<PlayerState, PlayerError> { send(.play) }
  /// Pauses playback.
  @discardableResult public func pause() -> Future<PlayerState, PlayerError> { send(.pause) }
  /// Pauses when playing, plays otherwise.
  @discardableResult public func toggle() -> Future<PlayerState, PlayerError> { send(.toggle) }
  /// Stops and rewinds the current track.
  @discardableResult public func stop() -> Future<PlayerState, PlayerError> { send(.stop) }
  /// Seeks to `seconds` from the start of the current track (clamped to its length).
  @discardableResult public func seek(to seconds: Double) -> Future<PlayerState, PlayerError> {
    send(.seek(.absolute(seconds)))
  }
  /// Seeks by `seconds` from the confirmed position.
  @discardableResult public func seek(by seconds: Double) -> Future<PlayerState, PlayerError> {
    send(.seek(.relative(seconds)))
  }
  /// Sets the volume in percent (clamped to 0–100).
  @discardableResult public func setVolume(_ percent: Int) -> Future<PlayerState, PlayerError> {
    send(.volume(.absolute(percent)))
  }
  /// Replaces the queue with `paths` and opens the first, stopped.
  @discardableResult public func load(_ paths: [String]) -> Future<PlayerState, PlayerError> { send(.load(paths)) }
  /// Opens the next track of the queue.
  @discardableResult public func next() -> Future<PlayerState, PlayerError> { send(.next) }
  /// Opens the previous track of the queue.
  @discardableResult public func previous() -> Future<PlayerState, PlayerError> { send(.previous) }
}
