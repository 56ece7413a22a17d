import Dispatch
import Futures

// Running one job: a command, an output event, a refresh or a recovery, and the output step it needs.
extension PlayerController {
  func refresh(_ resolver: Future<PlayerState, PlayerError>.Resolver) -> Progress {
    carryOut(core.withLock { $0.machine.refresh() }, for: "status", resolver)
  }

  func recover(_ resolver: Future<PlayerState, PlayerError>.Resolver) -> Progress {
    carryOut(core.withLock { $0.machine.recover() }, for: "reconnect", resolver)
  }

  func restore(_ restoration: Restoration, _ resolver: Future<PlayerState, PlayerError>.Resolver) -> Progress {
    let action = core.withLock {
      $0.machine.restore(queue: restoration.queue, index: restoration.index, seconds: restoration.seconds)
    }
    return carryOut(action, for: "restore", resolver)
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
    return carryOut(core.withLock { $0.machine.decide(command) }, for: command.name, resolver)
  }

  /// Carries out what the machine decided for a caller's request named `command`.
  private func carryOut(
    _ action: PlayerStateMachine.CommandAction, for command: String,
    _ resolver: Future<PlayerState, PlayerError>.Resolver
  ) -> Progress {
    switch action {
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
      let work = perform(step, for: command)
      if !work.isSettled { resolver.onCancel { work.cancel() } }
      return whenSettled(work) { [self] outcome in
        finishStep(step, command: command, outcome: outcome, resolver: resolver)
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
    if case .notice(let message) = event { configuration.onNotice?(message) }
    if case .underflow = event { configuration.onUnderflow?() }
    let action = core.withLock { $0.machine.handle(Self.current(event, server: output.serverVolume)) }
    switch action {
    case .publish(let state):
      observers.publish(state)
      return .done
    case .ignore:
      return .done
    case .perform(let step):
      return moveOn(step)
    }
  }

  /// Performs a step the player takes by itself (the previous track finished, or the one before could not be
  /// opened): no caller waits for it.
  private func moveOn(_ step: OutputStep) -> Progress {
    whenSettled(perform(step, for: "next")) { [self] outcome in
      finishStep(step, command: "next", outcome: outcome, resolver: nil)
    }
  }

  /// Hands the outcome of `step` to the machine and carries out what it decides, settling the caller's future
  /// (nil for a step the player took by itself).
  func finishStep(
    _ step: OutputStep, command: String, outcome: Outcome<StepResult, PlayerError>,
    resolver: Future<PlayerState, PlayerError>.Resolver?
  ) -> Progress {
    let result: Result<StepResult, PlayerError>
    switch outcome {
    case .success(let value): result = .success(value)
    case .failure(let error): result = .failure(error)
    case .cancelled:
      // The machine hears of it too: a move it counted skips for has ended.
      _ = core.withLock { $0.machine.answer(step, .failure(.cancelled)) }
      resolver?.settle(with: .cancelled)
      return .done
    }
    let (action, current) = core.withLock { core in (core.machine.answer(step, result), core.machine.state) }
    switch action {
    case .complete(let published):
      finish(resolver, with: .success(current), publishing: published)
      return .done
    case .fail(let error):
      finish(resolver, with: .failure(error), publishing: nil)
      return .done
    case .reconcileThenFail(let error):
      // The output may have done the step after all: publish what it really does before failing.
      let status = underDeadline(waitingOn(output.status()), error)
      return whenSettled(status) { [self] status in
        var published: PlayerState?
        if case .success(let confirmation) = status,
          case .complete(let reconciled) = core.withLock({
            $0.machine.answer(.status, .success(.confirmed(confirmation, track: nil)))
          })
        {
          published = reconciled
        }
        finish(resolver, with: .failure(error), publishing: published)
        return .done
      }
    case .skip(let error, let next):
      guard !core.withLock({ $0.closed }) else { return .done }
      configuration.onTrackSkipped?(error)
      // Opening the next file probes it (and may load FFmpeg): on the controller's queue, not where answers are
      // taken up, which may be the socket's event loop; and a hop each, so that a queue of unopenable files does
      // not deepen the stack.
      queue.async { [self] in proceed(core.withLock { $0.closed } ? .done : moveOn(next)) }
      return .waiting
    case .skipToEnd(let error, let published):
      guard !core.withLock({ $0.closed }) else { return .done }
      configuration.onTrackSkipped?(error)
      finish(nil, with: .success(current), publishing: published)
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
    case .status:
      work = output.status().map { .confirmed($0, track: nil) }
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
