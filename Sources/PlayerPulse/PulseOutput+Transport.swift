import CPulseAudio
import Futures
import PlayerCore

// Start, pause, seek and stop: the stream operations whose acknowledgements move the confirmed state.
extension PulseOutput {
  /// Uncorks once the ring holds audio; resolves with the position from the first timing update the server
  /// answers after the uncork (see ``StreamClock/isStale``).
  public func start() -> Future<OutputConfirmation, PlayerError> {
    prefill().flatMap { [self] _ in
      withOpenStream("start") { [self] stream, resolver in
        let started = confirmingAfterTiming(resolver)
        requests.issue(
          "start", start: { done in uncorkLocked(stream, done) },
          completion: { [self] ok in
            guard ok else { return started.fail(.outputFailed(operation: "start", detail: connection.lastError())) }
            startedLocked()
            waitForMovingClockLocked(started)
          }, failure: started.fail)
      }
    }
  }

  /// A waiter that confirms with the stream's state once the timing update behind a cork or uncork came, or
  /// fails `resolver` when the stream went first.
  private func confirmingAfterTiming(_ resolver: Future<OutputConfirmation, PlayerError>.Resolver) -> TimingWaiter {
    TimingWaiter { [self] result in
      guard case .failure(let error) = result else {
        let confirmation = confirmationLocked()
        return delivery.handOff { self.delivery.resolve(resolver, confirmation) }
      }
      delivery.handOff { resolver.reject(error) }
    }
  }

  /// Writes what the ring holds, then asks the server to uncork (lock held): the audio is there when it starts.
  func uncorkLocked(_ stream: OpaquePointer, _ done: UnsafeMutableRawPointer) -> OpaquePointer? {
    session?.uncorking()
    pumpLocked()
    let operation = pa_stream_cork(stream, 0, PulseOperation.streamCallback, done)
    requestTimingLocked()
    return operation
  }

  /// The server acknowledged an uncork (mainloop thread): audio flows, the ring is topped up and a gapless
  /// boundary is watched for again; the clock is trusted from the timing update requested behind the uncork.
  func startedLocked() {
    session?.uncorked(at: Self.now())
    // Weak: a waiter left in the list when the stream goes must not keep the output alive.
    waitForTimingLocked(
      TimingWaiter { [weak self] result in
        guard let self else { return }
        session?.timingRefreshed()
        if case .success = result {
          scheduleBoundaryCheckLocked()
          scheduleTitleCheckLocked()
        }
      })
    scheduleTimingLocked(restart: true)
    pumpLocked()
    scheduleBoundaryCheckLocked()
  }

  /// Corks, and confirms with the position from the first timing update the server answers after the cork:
  /// that update is requested right behind the cork, so it is taken once the stream had stopped, and the
  /// position it gives is where the audio stopped.
  public func pause() -> Future<OutputConfirmation, PlayerError> {
    withOpenStream("pause") { [self] stream, resolver in
      let cork = confirmingAfterTiming(resolver)
      requests.issue(
        "pause",
        start: { [self] done in
          let operation = pa_stream_cork(stream, 1, PulseOperation.streamCallback, done)
          requestTimingLocked()
          buffer.shrink(session)
          return operation
        },
        completion: { [self] ok in
          guard ok else { return cork.fail(.outputFailed(operation: "pause", detail: connection.lastError())) }
          session?.corked()
          // Not even one more firing to find the stream corked: a paused player does not wake.
          session?.timers.timing.cancel()
          cancelDrainLocked()
          waitForTimingLocked(cork)
        }, failure: cork.fail)
    }
  }

  /// Moves to `seconds`: cork, flush, refill from the new position, uncork if it was playing.
  public func seek(to seconds: Double) -> Future<OutputConfirmation, PlayerError> {
    reposition(to: seconds, name: "seek", resume: nil)
  }

  /// Corks and flushes, positioned at the start of the track.
  public func stop() -> Future<OutputConfirmation, PlayerError> {
    reposition(to: 0, name: "stop", resume: false)
  }

  /// Seek and stop: cork if running, flush, move the decoder, refill, and uncork again when `resume` says so
  /// (nil: as it was). A decoder that cannot move there fails the command, with the audio back where it was.
  private func reposition(to seconds: Double, name: String, resume: Bool?) -> Future<OutputConfirmation, PlayerError> {
    withOpenStream(name) { [self] stream, resolver in
      let heard = positionLocked()
      guard let session else { return delivery.handOff { resolver.reject(PulseRequests.noStream(name)) } }
      let (ring, decoder, wasRunning, sampleRate) = (session.ring, session.decoder, session.running, session.sampleRate)
      let target = min(max(Int64((seconds * Double(sampleRate)).rounded()), 0), decoder.info.frames)
      let before = min(max(Int64((heard * Double(sampleRate)).rounded()), 0), decoder.info.frames)
      cancelDrainLocked()
      ring.invalidate()
      // Back into the current track: the next one, if it was being decoded already, starts over later.
      self.session?.repositioning()
      if wasRunning {
        requests.issue(
          name + " (cork)", start: { done in pa_stream_cork(stream, 1, PulseOperation.streamCallback, done) },
          completion: { _ in }, failure: { _ in })
        buffer.shrink(self.session)
      }
      // What is written from here on plays from where the flush leaves the server's read index, which only
      // the timing update after it tells: until then nothing counts from the old anchor.
      self.session?.flushing()
      requests.issue(
        name + " (flush)", start: { done in pa_stream_flush(stream, PulseOperation.streamCallback, done) },
        completion: { [self] ok in
          guard ok else {
            let error = PlayerError.outputFailed(operation: name, detail: connection.lastError())
            return delivery.handOff { resolver.reject(error) }
          }
          self.session?.flushed()
          let move = Reposition(
            target: target, resume: resume ?? wasRunning, wasRunning: wasRunning, sampleRate: sampleRate)
          refillLocked(from: target, orBackTo: before, ring: ring, decoder: decoder) { [self] landing in
            move.landed(landing).map { repositionedLocked($0, resolver) }
          }
          anchorAfterFlushLocked(seconds: Double(target) / Double(sampleRate)) { [self] result in
            if case .failure(let error) = result { return delivery.handOff { resolver.reject(error) } }
            move.anchorKnown().map { repositionedLocked($0, resolver) }
          }
        }, failure: { error in self.delivery.handOff { resolver.reject(error) } })
    }
  }

  /// Carries out how a seek or stop ends (lock held; see ``Reposition``).
  private func repositionedLocked(
    _ decision: Reposition.Decision, _ resolver: Future<OutputConfirmation, PlayerError>.Resolver
  ) {
    if let seconds = decision.movedTo { session?.moved(to: seconds) }
    switch decision.then {
    case .fail(let failure):
      delivery.handOff { resolver.reject(failure) }
    case .confirmCorked:
      let confirmation = OutputConfirmation(
        position: session?.clock.anchorSeconds ?? 0, time: Self.now(), running: false, streamNumber: lineage.current)
      delivery.handOff { self.delivery.resolve(resolver, confirmation) }
    case .start(let failure):
      delivery.handOff {
        self.start().whenComplete { outcome in
          switch outcome {
          case .success(let confirmation):
            guard let failure else { return self.delivery.resolve(resolver, confirmation) }
            resolver.reject(failure)
          case .failure(let error): resolver.reject(failure ?? error)
          case .cancelled: resolver.reject(.cancelled)
          }
        }
      }
    }
  }
}

extension PulseOutput {
  /// Reads the stream's position and state from a fresh timing update.
  public func status() -> Future<OutputConfirmation, PlayerError> {
    confirmedStreamOperation(
      "status", start: { stream, ticket in pa_stream_update_timing_info(stream, PulseOperation.streamCallback, ticket) }
    )
  }

  /// Runs `body` with the lock held and the open stream, for an operation named `name` that settles through
  /// the resolver; fails at once when no stream is ready.
  private func withOpenStream<T: Sendable>(
    _ name: String, _ body: @escaping (OpaquePointer, Future<T, PlayerError>.Resolver) -> Void
  ) -> Future<T, PlayerError> {
    let (future, resolver) = Future<T, PlayerError>.pending()
    locked {
      guard let stream = session?.stream, pa_stream_get_state(stream) == PA_STREAM_READY else {
        return delivery.handOff { resolver.reject(PulseRequests.noStream(name)) }
      }
      body(stream, resolver)
    }
    return future
  }

  /// Issues `name` on the open stream and confirms with the stream's state once the server agreed.
  private func confirmedStreamOperation(
    _ name: String, start: @escaping (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?
  ) -> Future<OutputConfirmation, PlayerError> {
    withOpenStream(name) { [self] stream, resolver in
      requests.issue(
        name, start: { ticket in start(stream, ticket) },
        completion: { [self] ok in
          guard ok else {
            let error = PlayerError.outputFailed(operation: name, detail: connection.lastError())
            return delivery.handOff { resolver.reject(error) }
          }
          let confirmation = confirmationLocked()
          delivery.handOff { self.delivery.resolve(resolver, confirmation) }
        }, failure: { error in self.delivery.handOff { resolver.reject(error) } })
    }
  }
}
