import CPulseAudio
import PlayerCore

/// The server's clock for the current stream: timing updates and their schedule, the position and the
/// confirmations they give, the anchor after a flush, and what the clock reaches that was decoded ahead of it
/// (a gapless next track's first frame, a live stream's titles). Touched only with the mainloop lock held (or on
/// the mainloop thread); lock-confined, hence `@unchecked Sendable`.
final class StreamTiming: @unchecked Sendable {
  /// The loop, the current stream, the connection, the buffer, the requests and the delivery.
  private let parts: OutputParts
  /// Timing updates the server answered, for every stream of the output.
  private(set) var updatesAnswered = 0

  /// The clock of `current`'s stream on `connection`'s context; updates feed `buffer`, operations go through
  /// `requests` and events through `delivery`.
  init(parts: OutputParts) {
    self.parts = parts
  }

  /// Asks the server for a timing update and does not wait for it; the latency-update callback sees it arrive.
  /// The clock (``StreamSession/streamClock()``) says nothing true after a cork, an uncork or a flush until an
  /// update taken after it arrives, so one is requested right behind each.
  func requestLocked() {
    parts.loop.assertLocked(function: #function)
    parts.current.session?.requestTiming()
  }

  /// Asks for timing updates while audio flows, 10 ms after the uncork and then twice as long after each up to
  /// 1.5 s, as libpulse's automatic updates do: they keep the computed clock true. With the steady buffer up
  /// to 6 s: each update wakes splay twice, and a sound card's clock strays from the system's by tens of µs a
  /// second at most. Unlike libpulse's, they stop while the stream is corked (those went on every 1.5 s and kept
  /// a paused player waking): a pause cancels the timer, a seek or stop stops it at its next firing. `restart`
  /// starts the schedule over.
  func scheduleLocked(restart: Bool) {
    guard let context = parts.connection.context else { return }
    let due = pa_rtclock_now() + parts.buffer.nextTimingWait(restart: restart)
    parts.current.session?.timers.timing.schedule(at: due, on: context) { [weak self] in self?.timerFired() }
  }

  /// The timing timer fired (mainloop thread): one more update while audio flows, none once corked.
  private func timerFired() {
    guard let session = parts.current.session, session.running else { return }
    requestLocked()
    parts.buffer.timingDue(session)
    // Every 10 ms while a start waits for the server's clock to move.
    scheduleLocked(restart: session.waiters.awaitsTiming)
  }

  /// A timing update arrived (mainloop thread): the pauses whose cork was acknowledged before it can confirm, and
  /// the steady buffer may let the sink hold more once the update shows its queue full.
  func updatedLocked() {
    updatesAnswered += 1
    if let session = parts.current.session { parts.buffer.timingUpdated(session) }
    for cork in parts.current.session?.waiters.takeTiming() ?? [] { cork.answer() }
  }

  /// Lets `waiter` answer at the stream's next timing update; without a stream it fails at once.
  func waitLocked(_ waiter: TimingWaiter) {
    guard parts.current.session != nil else { return waiter.fail(.outputLost(detail: "the stream is gone")) }
    parts.current.session?.waiters.waitForTiming(waiter)
  }

  /// Answers `waiter` at the first timing update after an uncork from which the server's clock tells when the
  /// audio moves (``StreamClock/knowsStart(read:sinkLatency:)``), or once 0.5 s passed without one.
  /// Confirmed sooner, a start on PipeWire ran up to 80 ms ahead of the audio of a new stream.
  func waitForMovingClockLocked(
    _ waiter: TimingWaiter, deadline: UInt64 = PulseOutput.now() + 500_000_000, waited: Bool = false
  ) {
    waitLocked(
      TimingWaiter { [self] result in
        if case .failure(let error) = result { return waiter.fail(error) }
        let (read, sinkLatency) = parts.current.session?.readIndex() ?? (0, 0)
        let now = PulseOutput.now()
        guard parts.current.session?.clock.knowsStart(read: read, sinkLatency: sinkLatency) != false || now >= deadline
        else {
          return waitForMovingClockLocked(waiter, deadline: deadline, waited: true)
        }
        // Seen to begin only now: what it read at once is not heard at once, so the clock starts now.
        if waited { parts.current.session?.serverBegan(at: now) }
        waiter.answer()
      })
  }

  /// After a flush the server's read index is where new audio will start: records the stream time there as
  /// the anchor for `seconds`.
  func anchorAfterFlushLocked(seconds: Double, _ done: @escaping (Result<Void, PlayerError>) -> Void) {
    guard let stream = parts.current.session?.stream else {
      return done(.failure(.outputLost(detail: "the stream is gone")))
    }
    parts.requests.issue(
      "timing", start: { ticket in pa_stream_update_timing_info(stream, PulseOperation.streamCallback, ticket) },
      completion: { [self] _ in
        // Corked: the read index, where the new audio starts (``StreamSession/streamClock()``).
        parts.current.session?.anchored(at: seconds)
        done(.success(()))
      }, failure: { error in done(.failure(error)) })
  }

  /// The stream's state now, to confirm.
  func confirmationLocked() -> OutputConfirmation {
    // The position first: reading it may move on to the next track, which the confirmation then names.
    let position = positionLocked()
    let now = PulseOutput.now()
    let session = parts.current.session
    return OutputConfirmation(
      position: position, time: now, running: session?.running ?? false, streamNumber: parts.current.lineage.current,
      advance: session?.gapless.lastAdvance,
      // On a null sink nobody records, the audio moves once the 2-second block it rendered before has played
      // out (a view's clock ran 1.8 s ahead of the audio there).
      movesAt: session?.movesAt(position: position, now: now))
  }

  /// The played position (``StreamSession/position(at:)``), once a gapless boundary the server played has
  /// been crossed; 0 without a stream.
  func positionLocked() -> Double {
    parts.loop.assertLocked(function: #function)
    advanceIfBoundaryPlayedLocked()
    return parts.current.session?.position(at: PulseOutput.now()) ?? 0
  }

  // MARK: - What the clock reaches

  /// Moves on to the upcoming track once the server has played the boundary
  /// (``StreamSession/crossBoundaryIfPlayed(leaving:at:)``): confirmations carry a new stream number from then
  /// on, and the controller is told.
  func advanceIfBoundaryPlayedLocked() {
    parts.loop.assertLocked(function: #function)
    let previous = parts.current.lineage.current
    guard let track = parts.current.session?.crossBoundaryIfPlayed(leaving: previous, at: PulseOutput.now()),
      let session = parts.current.session
    else { return }
    let number = parts.current.lineage.begin()
    let confirmation = OutputConfirmation(
      position: session.clock.position, time: PulseOutput.now(), running: session.running, streamNumber: number,
      advance: session.gapless.lastAdvance)
    parts.delivery.announce(.trackAdvanced(from: previous, confirmation, track: track))
  }

  /// Checks again just after the server's clock should have reached the boundary (write callbacks alone may
  /// come too seldom to notice it within a few milliseconds). Only while playing and with a fresh clock
  /// (``StreamSession/boundaryWait()``): `start` schedules the check again.
  func scheduleBoundaryCheckLocked() {
    armClockCheckLocked(\.boundary, after: parts.current.session?.boundaryWait()) { timing, expected in
      timing.advanceIfBoundaryPlayedLocked()
      if timing.parts.current.lineage.current == expected { timing.scheduleBoundaryCheckLocked() }
    }
  }

  /// Takes the title changes `decoder` decoded into `ring` (decoding queue), when it is still the track being
  /// heard, and watches for the first of them to be played.
  func noteTitleChangesLocked(_ changes: [TitleChange], ring: SampleRing, decoder: any AudioDecoder) {
    guard !changes.isEmpty, parts.current.owns(ring) else { return }
    parts.current.session?.note(changes, from: decoder)
    scheduleTitleCheckLocked()
  }

  /// Checks just after the server's clock should have reached the next title's audio (ICY `StreamTitle`: a
  /// title is published when its audio is heard). Only while playing: `start` schedules the check again.
  func scheduleTitleCheckLocked() {
    guard parts.connection.context != nil, parts.current.session?.titles.isEmpty == false else { return }
    // A gapless boundary the server played comes first: the position then counts from the next track.
    advanceIfBoundaryPlayedLocked()
    armClockCheckLocked(\.title, after: parts.current.session?.titleWait(at: PulseOutput.now())) { timing, _ in
      timing.announceHeardTitlesLocked()
      timing.scheduleTitleCheckLocked()
    }
  }

  /// Publishes each title whose audio the server has played, with the position it was heard at.
  private func announceHeardTitlesLocked() {
    let position = positionLocked()
    guard let titles = parts.current.session?.heardTitles(by: position) else { return }
    for title in titles {
      parts.delivery.announce(.titleChanged(title, confirmationLocked()))
    }
  }

  /// Arms the stream's `timer` for 2 ms past `wait` seconds from now, when the server's clock should have
  /// reached what `check` looks for; `check` runs (mainloop thread) with the stream number it was armed for, and
  /// only while that stream is still the current one (a gapless advance counts a new one). Nothing when the
  /// wait, the stream or the context is not known.
  private func armClockCheckLocked(
    _ timer: KeyPath<MainloopTimers, MainloopTimer>, after wait: Double?,
    _ check: @escaping (StreamTiming, UInt64) -> Void
  ) {
    guard let context = parts.connection.context, let timer = parts.current.session?.timers[keyPath: timer], let wait
    else {
      return
    }
    let expected = parts.current.lineage.current
    timer.schedule(at: pa_rtclock_now() + pa_usec_t(wait * 1e6) + 2_000, on: context) { [weak self] in
      guard let self, parts.current.lineage.current == expected else { return }
      check(self, expected)
    }
  }
}
