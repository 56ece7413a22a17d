import CPulseAudio
import Futures
import PlayerCore

/// The current stream's audio path: decoding into the ring (through a ``RingFeeder``, whose host it is), writing
/// to the server, the prefill a start or a seek waits for, and the drain at the track's end. Touched only with
/// the mainloop lock held (or on the mainloop thread); lock-confined, hence `@unchecked Sendable`.
final class StreamFeed: @unchecked Sendable {
  /// The loop, the current stream, the connection, the buffer, the requests and the delivery.
  private let parts: OutputParts
  private let timing: StreamTiming
  /// Decodes into the stream's ring.
  private let feeder = RingFeeder()
  /// At most this much of a track (µs) is left at the server when its drain begins: the start-up buffer.
  private let drainLead: UInt64

  /// The audio path of `current`'s stream; the drain begins with at most `targetLatency` seconds left to play.
  init(parts: OutputParts, timing: StreamTiming, targetLatency: Double) {
    self.parts = parts
    self.timing = timing
    drainLead = UInt64(targetLatency * 1e6)
  }

  /// Writes what the ring holds into the server's buffer. Runs on the mainloop thread (write callback) or
  /// with the lock held.
  func pumpLocked() {
    parts.loop.assertLocked(function: #function)
    guard let ring = parts.current.session?.ring, parts.current.session?.isReady == true else { return }
    if parts.current.session?.pump() == true { timing.scheduleBoundaryCheckLocked() }
    timing.advanceIfBoundaryPlayedLocked()
    if ring.drained {
      // Not before an `open` took the stream: a stream prepared to play has nobody to tell of its end yet.
      if let session = parts.current.session, session.awaitsDrain, parts.current.lineage.firstOpenCame {
        parts.buffer.shrink(session)
        drainNearTheEndLocked()
      }
    } else {
      scheduleFillLocked()
    }
  }

  /// The whole track is at the server: drains once at most `targetLatency` of it is left to play. With the
  /// steady buffer the server takes the rest of a track seconds before it plays; a next track offered meanwhile
  /// (``PulseOutput/prepareNext(_:following:)``) must still follow it. The wait is timed once, by the server's
  /// clock now: a clock that stalls (a sink that took the audio in one long block) must not hold the drain back
  /// for good.
  private func drainNearTheEndLocked() {
    guard let session = parts.current.session, !session.timers.drain.isPending else { return }
    let wait = session.drainWait(leaving: drainLead)
    guard let context = parts.connection.context, wait > 0 else { return startDrainLocked() }
    let ring = session.ring
    session.timers.drain.schedule(at: pa_rtclock_now() + wait, on: context) { [weak self] in
      // Still the same track's end, still playing: a cork, seek or next track since then decides anew.
      guard let self, let session = parts.current.session, session.awaitsDrain, session.ring === ring,
        parts.current.lineage.firstOpenCame
      else { return }
      startDrainLocked()
    }
  }

  private func startDrainLocked() {
    guard let stream = parts.current.session?.stream else { return }
    let operation = parts.requests.issue(
      "drain", start: { done in pa_stream_drain(stream, PulseOperation.streamCallback, done) },
      completion: { [self] ok in
        parts.current.session?.drainEnded()
        guard ok, parts.current.session?.running == true, let ended = parts.current.session?.drained() else { return }
        let confirmation = OutputConfirmation(
          position: ended.end, time: PulseOutput.now(), running: false, streamNumber: parts.current.lineage.current)
        let event: OutputEvent = ended.failure.map { .trackFailed($0, confirmation) } ?? .trackFinished(confirmation)
        parts.delivery.announce(event)
      }, failure: { _ in })
    parts.current.session?.drainBegan(operation)
  }

  /// Cancels the drain, or the wait before it.
  func cancelDrainLocked() {
    parts.current.session?.timers.drain.cancel()
    guard let operation = parts.current.session?.drainEnded() else { return }
    parts.requests.cancel(operation)
  }

  /// Decodes more audio on the decoding queue once the ring is down to its low-water mark (or at once with
  /// `evenAboveTheMark`), unless a fill is already on its way.
  func scheduleFillLocked(evenAboveTheMark: Bool = false) {
    parts.loop.assertLocked(function: #function)
    guard let ring = parts.current.session?.ring, evenAboveTheMark || ring.wantsRefill else { return }
    feeder.scheduleFill(ring, for: self)
  }

  /// Moves the decoder to `frame` and refills the ring from there
  /// (``RingFeeder/refill(_:from:orBackTo:decoder:for:landed:)``).
  func refillLocked(
    from frame: Int64, orBackTo fallback: Int64, ring: SampleRing, decoder: any AudioDecoder,
    landed: @escaping @Sendable (SeekLanding) -> Void = { _ in }
  ) {
    parts.loop.assertLocked(function: #function)
    feeder.refill(ring, from: frame, orBackTo: fallback, decoder: decoder, for: self, landed: landed)
  }

  /// Resolves once a first buffer of audio is there, in the ring or already written to the server (or the
  /// whole rest of the track is). It does not wait for the ring to be full: the decoding queue hands the
  /// waiters over with its first chunks, so a start or a seek waits for 50 ms of audio, not for two seconds.
  func prefill() -> Future<Void, PlayerError> {
    let (future, resolver) = Future<Void, PlayerError>.pending()
    let ready = parts.loop.locked { () -> Bool in
      guard let session = parts.current.session else {
        parts.delivery.handOff { resolver.reject(PulseRequests.noStream("start")) }
        return false
      }
      if session.isPrefilled { return true }
      parts.current.session?.waiters.waitForPrefill(resolver)
      // A fill normally is on its way (opening and seeking start one); this makes sure of it.
      scheduleFillLocked(evenAboveTheMark: true)
      return false
    }
    // Resolved here, on the caller's thread and outside the lock: handing an audio that is already there to
    // the delivery executor cost a resume a thread hand-over before its uncork could even be sent.
    if ready { resolver.resolve() }
    return future
  }

  /// Runs `action` once the open stream's ring holds its first audio, at once when it does already; with
  /// `false` when the stream goes first.
  func whenPrefilledLocked(_ action: @escaping (Bool) -> Void) {
    guard let session = parts.current.session else { return action(false) }
    if session.isPrefilled { return action(true) }
    parts.current.session?.waiters.whenPrefilled(action)
    scheduleFillLocked(evenAboveTheMark: true)
  }

  /// Resolves the prefill waiters once the decoder has handed over enough audio (decoding queue, lock held).
  private func releasePrefillWaitersLocked(_ ring: SampleRing) {
    guard let session = parts.current.session, session.ring === ring, session.waiters.awaitsPrefill,
      session.isPrefilled, let (resolvers, actions) = parts.current.session?.waiters.takePrefill()
    else { return }
    for action in actions { action(true) }
    if !resolvers.isEmpty { parts.delivery.handOff { for resolver in resolvers { resolver.resolve() } } }
  }
}

// What the decoding side tells the stream and asks of it: the stream's ring is the one it names, or it is gone.
extension StreamFeed: RingFeederHost {
  func locked<T>(_ body: () -> T) -> T { parts.loop.locked(body) }

  func sourceLocked(for ring: SampleRing) -> (any AudioDecoder)? {
    guard parts.current.owns(ring) else { return nil }
    return parts.current.session?.feedingDecoder
  }

  func fillPlanLocked() -> FillPlan {
    parts.buffer.fillPlan(
      sampleRate: parts.current.session?.sampleRate ?? 44_100, running: parts.current.session?.running ?? false)
  }

  func isRunningLocked() -> Bool { parts.current.session?.running ?? false }

  func decodedLocked(notices: [String], titles: [TitleChange], ring: SampleRing, decoder: any AudioDecoder) {
    let path = decoder.info.path
    for notice in notices { parts.delivery.announce(.notice("\(path): \(notice)")) }
    timing.noteTitleChangesLocked(titles, ring: ring, decoder: decoder)
  }

  func readFailedLocked(_ error: PlayerError, ring: SampleRing) {
    // The next track, even if offered, then takes the usual path, so that the failure is about the right track.
    if parts.current.owns(ring) { parts.current.session?.readFailed(error) }
  }

  /// At the current track's end: when a next track was offered, marks the boundary in the ring and returns that
  /// track's decoder, and whether it must be rewound first.
  func trackEndedLocked(ring: SampleRing, generation: UInt64) -> (decoder: any AudioDecoder, rewind: Bool)? {
    guard parts.current.owns(ring) else { return nil }
    return parts.current.session?.continueWithUpcoming(generation: generation)
  }

  func landedLocked(_ landing: SeekLanding, ring: SampleRing) -> Bool {
    guard parts.current.owns(ring) else { return false }
    parts.current.session?.landed(landing)
    return true
  }

  /// Gives the server what the ring holds and answers the prefills it satisfies.
  func handOverLocked(_ ring: SampleRing) {
    guard parts.current.owns(ring) else { return }
    pumpLocked()
    releasePrefillWaitersLocked(ring)
  }

  func fillEndedQuietlyLocked(_ ring: SampleRing) {
    if parts.current.owns(ring) { releasePrefillWaitersLocked(ring) }
  }
}
