import Dispatch
import Futures

// The serial job queue: one job in flight, in arrival order, taken up where answers come.
extension PlayerController {
  /// Queues `job`; once the controller is shut down, refuses it instead (events are dropped) and returns false.
  @discardableResult
  func enqueue(_ job: QueuedWork) -> Bool {
    let (added, start) = core.withLock { core -> (Bool, Bool) in
      if core.closed { return (false, false) }
      core.jobs.append(job)
      guard !core.jobInFlight else { return (true, false) }
      core.jobInFlight = true
      return (true, true)
    }
    if start { queue.async { self.runNext() } }
    if !added { refuse(job) }
    return added
  }

  /// Whether the job just handled is done (take the next one now) or waits for the output (whose answer
  /// calls ``runNext()`` again, so exactly one job is in flight).
  enum Progress {
    case done
    case waiting
  }

  /// Runs jobs until one has to wait for the output or none is left. A loop rather than recursion, so that
  /// thousands of commands answered at once do not deepen the stack.
  func runNext() {
    while true {
      if !core.withLock({ $0.closed }) { offerUpcomingIfDue() }
      guard let job = takeJob() else { return announceQuiescence() }
      let progress: Progress
      switch job {
      case .close(let resolver):
        closeOutput(resolver)
        progress = .done
      case .command(let command, let resolver): progress = run(command, resolver)
      case .event(let event): progress = handle(event)
      case .refresh(let resolver): progress = refresh(resolver)
      case .recover(let resolver): progress = recover(resolver)
      case .restore(let restoration, let resolver): progress = restore(restoration, resolver)
      case .addStream(let continuation):
        continuation.yield(state)
        observers.add(continuation)
        progress = .done
      }
      if progress == .waiting { return announceQuiescence() }
    }
  }

  /// Opens the track after the current one and offers it to the output, once per track and stream, so that
  /// it can follow without a gap. Nothing is published: the output reports `trackAdvanced` when the boundary
  /// has been played. A file that cannot be opened is left to the usual path, which reports and skips it when
  /// the current track ends.
  private func offerUpcomingIfDue() {
    guard output.playsGapless else { return }
    let (due, order) = core.withLock { ($0.machine.takeOffer(), $0.machine.playOrder) }
    guard let due, let decoder = try? decoders.open(due.path, order: order) else { return }
    _ = output.prepareNext(decoder, following: due.following)
  }

  /// After an answer of the output was taken up: the next jobs when the job is done (``goOn()``); otherwise the
  /// job waits for the output again, and whoever waits for the controller to catch up is told.
  func proceed(_ progress: Progress) {
    if progress == .done { goOn() } else { announceQuiescence() }
  }

  /// Goes on after a job finished where answers are taken up: with the next jobs right here when that is the
  /// controller's queue; otherwise on the queue (where opening a file may block) when anything is left to do,
  /// or, with nothing waiting, by releasing the controller here, without waking the queue.
  func goOn() {
    if answersOnQueue { return runNext() }
    let released = core.withLock { core -> Bool in
      guard core.head >= core.jobs.count, !(output.playsGapless && core.machine.offerIsDue) else { return false }
      core.release()
      return true
    }
    if released { announceQuiescence() } else { queue.async { self.runNext() } }
  }

  private func takeJob() -> QueuedWork? {
    core.withLock { core -> QueuedWork? in
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
  func whenSettled<T>(
    _ future: Future<T, PlayerError>, _ body: @escaping @Sendable (Outcome<T, PlayerError>) -> Progress
  ) -> Progress {
    if let outcome = future.outcome { return body(outcome) }
    future.whenComplete(on: answers) { [self] outcome in
      proceed(body(outcome))
    }
    return .waiting
  }
}
