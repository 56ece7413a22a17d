import Dispatch
import Futures

// Running one job: a command, an output event, a refresh or a recovery, and the output step it needs.
extension PlayerController {
  func refresh(_ resolver: Future<PlayerState, PlayerError>.Resolver) -> Progress {
    guard core.withLock({ $0.machine.refreshAsksOutput }) else {
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

  func recover(_ resolver: Future<PlayerState, PlayerError>.Resolver) -> Progress {
    guard let step = core.withLock({ $0.machine.recovery }) else {
      resolver.reject(.invalidState(command: "reconnect", state: state.status.name))
      return .done
    }
    let work = perform(step, for: "reconnect")
    return whenSettled(work) { [self] outcome in
      finishStep(step, command: "reconnect", outcome: outcome, resolver: resolver)
    }
  }

  func restore(_ restoration: Restoration, _ resolver: Future<PlayerState, PlayerError>.Resolver) -> Progress {
    let decision = core.withLock {
      $0.machine.restoration(queue: restoration.queue, index: restoration.index, seconds: restoration.seconds)
    }
    guard case .perform(let step) = decision else {
      if case .reject(let error) = decision { resolver.reject(error) }
      return .done
    }
    let work = perform(step, for: "restore")
    return whenSettled(work) { [self] outcome in
      finishStep(step, command: "restore", outcome: outcome, resolver: resolver)
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

  func run(_ command: PlayerCommand, _ resolver: Future<PlayerState, PlayerError>.Resolver) -> Progress {
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

  /// A volume or mute change as the server has it now: the event may have been read before the answer to a
  /// `volume` or `mute` command that the controller has applied since (a restore that the command overrode).
  static func current(_ event: OutputEvent, server: (level: Int, muted: Bool)?) -> OutputEvent {
    guard let server else { return event }
    switch event {
    case .volumeChanged: return .volumeChanged(server.level)
    case .muteChanged: return .muteChanged(server.muted)
    default: return event
    }
  }

  func handle(_ event: OutputEvent) -> Progress {
    if case .trackFailed(let error, _) = event { configuration.onTrackSkipped?(error) }
    let reaction = core.withLock { $0.machine.handle(Self.current(event, server: output.serverVolume)) }
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
  /// opened is reported and skipped as the machine decides; `failures` counts the tracks skipped on the way.
  private func advance(_ step: OutputStep, failures: Int = 0) -> Progress {
    perform(step, for: "next").whenComplete(on: answers) { [self] outcome in
      guard case .failure(let error) = outcome,
        case .skip(let error, let skip)? = core.withLock({
          $0.closed ? nil : $0.machine.fail(step, error, movingOn: failures)
        })
      else {
        proceed(finishStep(step, command: "next", outcome: outcome, resolver: nil))
        return
      }
      configuration.onTrackSkipped?(error)
      switch skip {
      case .perform(let retry):
        // Opening the next file probes it (and may load FFmpeg): on the controller's queue, not where answers
        // are taken up, which may be the socket's event loop.
        let retryOnQueue: @Sendable () -> Void = { [self] in
          proceed(advance(retry, failures: failures + 1))
        }
        if answersOnQueue { retryOnQueue() } else { queue.async(execute: retryOnQueue) }
      case .ended(let published):
        if let published { observers.publish(published) }
        goOn()
      }
    }
    return .waiting
  }

  /// Applies the outcome of a step and settles the command's future.
  func finishStep(
    _ step: OutputStep, command: String, outcome: Outcome<StepResult, PlayerError>,
    resolver: Future<PlayerState, PlayerError>.Resolver?
  ) -> Progress {
    switch outcome {
    case .success(let result):
      let (published, current) = core.withLock { core in (core.machine.confirm(step, result), core.machine.state) }
      finish(resolver, with: .success(current), publishing: published)
      return .done
    case .failure(let error):
      guard case .reconcileThenFail(let error) = core.withLock({ $0.machine.fail(step, error) }) else {
        finish(resolver, with: .failure(error), publishing: nil)
        return .done
      }
      // The output may have done the step after all: publish what it really does before failing.
      let status = underDeadline(waitingOn(output.status()), error)
      return whenSettled(status) { [self] status in
        var published: PlayerState?
        if case .success(let confirmation) = status {
          published = core.withLock { $0.machine.reconcile(confirmation) }
        }
        finish(resolver, with: .failure(error), publishing: published)
        return .done
      }
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
  func perform(_ step: OutputStep, for command: String) -> Future<StepResult, PlayerError> {
    let seconds = deadlineSeconds
    let work: Future<StepResult, PlayerError>
    switch step {
    case .open(let queue, let index, let at, _):
      work = open(queue[index], at: at, for: step)
    case .start:
      work = output.start().map { .confirmed($0, track: nil) }
    case .pause:
      work = output.pause().map { .confirmed($0, track: nil) }
    case .seek(let target):
      work = output.seek(to: target).map { .confirmed($0, track: nil) }
    case .seekBy:
      work = output.status().flatMap { [output] now in
        output.seek(to: step.seekTarget(from: now.position) ?? now.position)
      }.map { .confirmed($0, track: nil) }
    case .stop:
      work = output.stop().map { .confirmed($0, track: nil) }
    case .volume(let level):
      work = output.setVolume(level).map { .volume($0) }
    case .mute(let muted):
      work = output.setMute(muted).map { .mute($0) }
    }
    // Answered in the call (the simulated output, or a refusal): no deadline to arm, no timer task to start.
    if work.isSettled { return work }
    return waitingOn(underDeadline(work, .timeout(command: command, seconds: seconds)))
  }

  /// Opens `path` at `seconds` and, when `step` says so, starts it: the confirmation is the last of the two.
  private func open(_ path: String, at seconds: Double, for step: OutputStep) -> Future<StepResult, PlayerError> {
    let (volume, order) = core.withLock { ($0.machine.volumeForNewStream, $0.machine.playOrder) }
    let decoder: any AudioDecoder
    do {
      decoder = try decoders.open(path, order: order)
    } catch {
      return .rejected(error)
    }
    let info = decoder.info
    return output.open(decoder, at: seconds, volume: volume).flatMap { [output] opened in
      step.followUp(afterOpening: opened) == .start ? output.start() : .resolved(opened)
    }.map { .confirmed($0, track: info) }
  }
}
