import CPulseAudio
import Futures
import PlayerCore

// The audio path: decoding into the ring, writing to the server, prefill and drain.
extension PulseOutput {
  /// Writes what the ring holds into the server's buffer. Runs on the mainloop thread (write callback) or
  /// with the lock held.
  func pumpLocked() {
    assertLocked()
    guard let ring = session?.ring, session?.isReady == true else { return }
    if session?.pump() == true { scheduleBoundaryCheckLocked() }
    advanceIfBoundaryPlayedLocked()
    if ring.drained {
      // Not before an `open` took the stream: a stream prepared to play has nobody to tell of its end yet.
      if let session = self.session, session.awaitsDrain, lineage.firstOpenCame {
        buffer.shrink(session)
        drainNearTheEndLocked()
      }
    } else {
      scheduleFillLocked()
    }
  }

  /// The whole track is at the server: drains once at most `targetLatency` of it is left to play. With the
  /// steady buffer the server takes the rest of a track seconds before it plays; a next track offered meanwhile
  /// (``prepareNext(_:following:)``) must still follow it. The wait is timed once, by the server's clock now: a
  /// clock that stalls (a sink that took the audio in one long block) must not hold the drain back for good.
  private func drainNearTheEndLocked() {
    guard let current = session, !current.timers.drain.isPending else { return }
    let wait = current.drainWait(leaving: UInt64(configuration.targetLatency * 1e6))
    guard let context = connection.context, wait > 0 else { return startDrainLocked() }
    let ring = current.ring
    current.timers.drain.schedule(at: pa_rtclock_now() + wait, on: context) { [weak self] in
      // Still the same track's end, still playing: a cork, seek or next track since then decides anew.
      guard let self, let session, session.awaitsDrain, session.ring === ring, lineage.firstOpenCame else { return }
      startDrainLocked()
    }
  }

  private func startDrainLocked() {
    guard let stream = session?.stream else { return }
    let operation = requests.issue(
      "drain", start: { done in pa_stream_drain(stream, PulseOperation.streamCallback, done) },
      completion: { [self] ok in
        session?.drainEnded()
        guard ok, session?.running == true, let ended = session?.drained() else { return }
        let confirmation = OutputConfirmation(
          position: ended.end, time: Self.now(), running: false, streamNumber: lineage.current)
        let event: OutputEvent = ended.failure.map { .trackFailed($0, confirmation) } ?? .trackFinished(confirmation)
        delivery.announce(event)
      }, failure: { _ in })
    session?.drainBegan(operation)
  }

  /// Cancels the drain, or the wait before it (lock held).
  func cancelDrainLocked() {
    session?.timers.drain.cancel()
    guard let operation = session?.drainEnded() else { return }
    requests.cancel(operation)
  }

  /// Decodes more audio on the decoding queue once the ring is down to its low-water mark (or at once with
  /// `evenAboveTheMark`), unless a fill is already on its way.
  func scheduleFillLocked(evenAboveTheMark: Bool = false) {
    assertLocked()
    guard let ring = session?.ring, evenAboveTheMark || ring.wantsRefill else { return }
    feeder.scheduleFill(ring, for: self)
  }

  /// Moves the decoder to `frame` and refills the ring from there (``RingFeeder/refill(_:from:orBackTo:decoder:for:landed:)``).
  func refillLocked(
    from frame: Int64, orBackTo fallback: Int64, ring: SampleRing, decoder: any AudioDecoder,
    landed: @escaping @Sendable (SeekLanding) -> Void = { _ in }
  ) {
    assertLocked()
    feeder.refill(ring, from: frame, orBackTo: fallback, decoder: decoder, for: self, landed: landed)
  }

  /// Resolves once a first buffer of audio is there, in the ring or already written to the server (or the
  /// whole rest of the track is). It does not wait for the ring to be full: the decoding queue hands the
  /// waiters over with its first chunks, so a start or a seek waits for 50 ms of audio, not for two seconds.
  func prefill() -> Future<Void, PlayerError> {
    let (future, resolver) = Future<Void, PlayerError>.pending()
    let ready = locked { () -> Bool in
      guard let session else {
        delivery.handOff { resolver.reject(PulseRequests.noStream("start")) }
        return false
      }
      if session.isPrefilled { return true }
      self.session?.waiters.waitForPrefill(resolver)
      // A fill normally is on its way (opening and seeking start one); this makes sure of it.
      scheduleFillLocked(evenAboveTheMark: true)
      return false
    }
    // Resolved here, on the caller's thread and outside the lock: handing an audio that is already there to
    // the delivery executor cost a resume a thread hand-over before its uncork could even be sent.
    if ready { resolver.resolve() }
    return future
  }

  /// Runs `action` (lock held) once the open stream's ring holds its first audio, at once when it does already;
  /// with `false` when the stream goes first.
  func whenPrefilledLocked(_ action: @escaping (Bool) -> Void) {
    guard let session else { return action(false) }
    if session.isPrefilled { return action(true) }
    self.session?.waiters.whenPrefilled(action)
    scheduleFillLocked(evenAboveTheMark: true)
  }

  /// Resolves the prefill waiters once the decoder has handed over enough audio (decoding queue, lock held).
  private func releasePrefillWaitersLocked(_ ring: SampleRing) {
    guard session?.ring === ring, session?.waiters.awaitsPrefill == true, session?.isPrefilled == true,
      let (resolvers, actions) = session?.waiters.takePrefill()
    else { return }
    for action in actions { action(true) }
    if !resolvers.isEmpty { delivery.handOff { for resolver in resolvers { resolver.resolve() } } }
  }
}

// What the decoding side tells the stream and asks of it: the stream's ring is the one it names, or it is gone.
extension PulseOutput: RingFeederHost {
  func sourceLocked(for ring: SampleRing) -> (any AudioDecoder)? {
    guard let session, session.ring === ring else { return nil }
    return session.feedingDecoder
  }

  func fillPlanLocked() -> FillPlan {
    // With the steady buffer the server holds seconds: an early hand-over would only wake the loop thread once
    // more for the same request.
    FillPlan(
      corkedFrames: buffer.policy.corkedFillFrames(sampleRate: session?.sampleRate ?? 44_100),
      handsOverEarly: buffer.policy.handsOverEarly(running: session?.running ?? false))
  }

  func isRunningLocked() -> Bool { session?.running ?? false }

  func decodedLocked(notices: [String], titles: [TitleChange], ring: SampleRing, decoder: any AudioDecoder) {
    let path = decoder.info.path
    for notice in notices { delivery.announce(.notice("\(path): \(notice)")) }
    noteTitleChangesLocked(titles, ring: ring, decoder: decoder)
  }

  func readFailedLocked(_ error: PlayerError, ring: SampleRing) {
    // The next track, even if offered, then takes the usual path, so that the failure is about the right track.
    if session?.ring === ring { session?.readFailed(error) }
  }

  /// At the current track's end: when a next track was offered, marks the boundary in the ring and returns that
  /// track's decoder, and whether it must be rewound first.
  func trackEndedLocked(ring: SampleRing, generation: UInt64) -> (decoder: any AudioDecoder, rewind: Bool)? {
    guard session?.ring === ring else { return nil }
    return session?.continueWithUpcoming(generation: generation)
  }

  func landedLocked(_ landing: SeekLanding, ring: SampleRing) -> Bool {
    guard session?.ring === ring else { return false }
    session?.landed(landing)
    return true
  }

  /// Gives the server what the ring holds and answers the prefills it satisfies.
  func handOverLocked(_ ring: SampleRing) {
    guard session?.ring === ring else { return }
    pumpLocked()
    releasePrefillWaitersLocked(ring)
  }

  func fillEndedQuietlyLocked(_ ring: SampleRing) {
    if session?.ring === ring { releasePrefillWaitersLocked(ring) }
  }
}
