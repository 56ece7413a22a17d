import CPulseAudio
import Futures
import PlayerCore

/// Start, pause, seek, stop and status on the current stream: the operations whose acknowledgements move the
/// confirmed state (``PulseOutput`` lists which acknowledgement settles which). Touched only with the mainloop
/// lock held, but for the entry points that take it; lock-confined, hence `@unchecked Sendable`.
final class StreamTransport: @unchecked Sendable {
  /// The loop, the current stream, the connection, the buffer, the requests and the delivery.
  private let parts: OutputParts
  private let feed: StreamFeed
  private let timing: StreamTiming

  /// The operations on `current`'s stream, issued through `requests` and settled through `delivery`.
  init(parts: OutputParts, feed: StreamFeed, timing: StreamTiming) {
    self.parts = parts
    self.feed = feed
    self.timing = timing
  }

  /// Uncorks once the ring holds audio; resolves with the position from the first timing update the server
  /// answers after the uncork (see ``StreamClock/isStale``).
  func start() -> Future<OutputConfirmation, PlayerError> {
    feed.prefill().flatMap { [self] _ in
      withOpenStream("start") { [self] stream, resolver in
        let started = confirmingAfterTiming(resolver)
        parts.requests.issue(
          "start", start: { done in uncorkLocked(stream, done) },
          completion: { [self] ok in
            guard ok else {
              return started.fail(.outputFailed(operation: "start", detail: parts.connection.lastError()))
            }
            startedLocked()
            timing.waitForMovingClockLocked(started)
          }, failure: started.fail)
      }
    }
  }

  /// A waiter that confirms with the stream's state once the timing update behind a cork or uncork came, or
  /// fails `resolver` when the stream went first.
  private func confirmingAfterTiming(_ resolver: Future<OutputConfirmation, PlayerError>.Resolver) -> TimingWaiter {
    TimingWaiter { [self] result in
      guard case .failure(let error) = result else {
        let confirmation = timing.confirmationLocked()
        return parts.delivery.handOff { self.parts.delivery.resolve(resolver, confirmation) }
      }
      parts.delivery.handOff { resolver.reject(error) }
    }
  }

  /// Writes what the ring holds, then asks the server to uncork (lock held): the audio is there when it starts.
  func uncorkLocked(_ stream: OpaquePointer, _ done: UnsafeMutableRawPointer) -> OpaquePointer? {
    parts.current.session?.uncorking()
    feed.pumpLocked()
    let operation = pa_stream_cork(stream, 0, PulseOperation.streamCallback, done)
    timing.requestLocked()
    return operation
  }

  /// The server acknowledged an uncork (mainloop thread): audio flows, the ring is topped up and a gapless
  /// boundary is watched for again; the clock is trusted from the timing update requested behind the uncork.
  func startedLocked() {
    parts.current.session?.uncorked(at: PulseOutput.now())
    // Weak: a waiter left in the list when the stream goes must not keep the parts alive.
    timing.waitLocked(
      TimingWaiter { [weak self] result in
        guard let self else { return }
        parts.current.session?.timingRefreshed()
        if case .success = result {
          timing.scheduleBoundaryCheckLocked()
          timing.scheduleTitleCheckLocked()
        }
      })
    timing.scheduleLocked(restart: true)
    feed.pumpLocked()
    timing.scheduleBoundaryCheckLocked()
  }

  /// Corks, and confirms with the position from the first timing update the server answers after the cork:
  /// that update is requested right behind the cork, so it is taken once the stream had stopped, and the
  /// position it gives is where the audio stopped.
  func pause() -> Future<OutputConfirmation, PlayerError> {
    withOpenStream("pause") { [self] stream, resolver in
      let cork = confirmingAfterTiming(resolver)
      parts.requests.issue(
        "pause",
        start: { [self] done in
          let operation = pa_stream_cork(stream, 1, PulseOperation.streamCallback, done)
          timing.requestLocked()
          parts.buffer.shrink(parts.current.session)
          return operation
        },
        completion: { [self] ok in
          guard ok else { return cork.fail(.outputFailed(operation: "pause", detail: parts.connection.lastError())) }
          parts.current.session?.corked()
          // Not even one more firing to find the stream corked: a paused player does not wake.
          parts.current.session?.timers.timing.cancel()
          feed.cancelDrainLocked()
          timing.waitLocked(cork)
        }, failure: cork.fail)
    }
  }

  /// Seek and stop: cork if running, flush, move the decoder, refill, and uncork again when `resume` says so
  /// (nil: as it was). A decoder that cannot move there fails the command, with the audio back where it was.
  func reposition(to seconds: Double, name: String, resume: Bool?) -> Future<OutputConfirmation, PlayerError> {
    withOpenStream(name) { [self] stream, resolver in
      let heard = timing.positionLocked()
      guard let session = parts.current.session else {
        return parts.delivery.handOff { resolver.reject(PulseRequests.noStream(name)) }
      }
      let (ring, decoder, wasRunning, sampleRate) = (session.ring, session.decoder, session.running, session.sampleRate)
      let target = min(max(Int64((seconds * Double(sampleRate)).rounded()), 0), decoder.info.frames)
      let before = min(max(Int64((heard * Double(sampleRate)).rounded()), 0), decoder.info.frames)
      feed.cancelDrainLocked()
      ring.invalidate()
      // Back into the current track: the next one, if it was being decoded already, starts over later.
      parts.current.session?.repositioning()
      if wasRunning {
        parts.requests.issue(
          name + " (cork)", start: { done in pa_stream_cork(stream, 1, PulseOperation.streamCallback, done) },
          completion: { _ in }, failure: { _ in })
        parts.buffer.shrink(parts.current.session)
      }
      // What is written from here on plays from where the flush leaves the server's read index, which only
      // the timing update after it tells: until then nothing counts from the old anchor.
      parts.current.session?.flushing()
      parts.requests.issue(
        name + " (flush)", start: { done in pa_stream_flush(stream, PulseOperation.streamCallback, done) },
        completion: { [self] ok in
          guard ok else {
            let error = PlayerError.outputFailed(operation: name, detail: parts.connection.lastError())
            return parts.delivery.handOff { resolver.reject(error) }
          }
          parts.current.session?.flushed()
          let move = Reposition(
            target: target, resume: resume ?? wasRunning, wasRunning: wasRunning, sampleRate: sampleRate)
          feed.refillLocked(from: target, orBackTo: before, ring: ring, decoder: decoder) { [self] landing in
            move.landed(landing).map { repositionedLocked($0, resolver) }
          }
          timing.anchorAfterFlushLocked(seconds: Double(target) / Double(sampleRate)) { [self] result in
            if case .failure(let error) = result { return parts.delivery.handOff { resolver.reject(error) } }
            move.anchorKnown().map { repositionedLocked($0, resolver) }
          }
        }, failure: { error in self.parts.delivery.handOff { resolver.reject(error) } })
    }
  }

  /// Carries out how a seek or stop ends (lock held; see ``Reposition``).
  private func repositionedLocked(
    _ decision: Reposition.Decision, _ resolver: Future<OutputConfirmation, PlayerError>.Resolver
  ) {
    if let seconds = decision.movedTo { parts.current.session?.moved(to: seconds) }
    switch decision.then {
    case .fail(let failure):
      parts.delivery.handOff { resolver.reject(failure) }
    case .confirmCorked:
      let confirmation = OutputConfirmation(
        position: parts.current.session?.clock.anchorSeconds ?? 0, time: PulseOutput.now(), running: false,
        streamNumber: parts.current.lineage.current)
      parts.delivery.handOff { self.parts.delivery.resolve(resolver, confirmation) }
    case .start(let failure):
      parts.delivery.handOff {
        self.start().whenComplete { outcome in
          switch outcome {
          case .success(let confirmation):
            guard let failure else { return self.parts.delivery.resolve(resolver, confirmation) }
            resolver.reject(failure)
          case .failure(let error): resolver.reject(failure ?? error)
          case .cancelled: resolver.reject(.cancelled)
          }
        }
      }
    }
  }

  /// Reads the stream's position and state from a fresh timing update.
  func status() -> Future<OutputConfirmation, PlayerError> {
    withOpenStream("status") { [self] stream, resolver in
      parts.requests.issue(
        "status",
        start: { ticket in pa_stream_update_timing_info(stream, PulseOperation.streamCallback, ticket) },
        completion: { [self] ok in
          guard ok else {
            let error = PlayerError.outputFailed(operation: "status", detail: parts.connection.lastError())
            return parts.delivery.handOff { resolver.reject(error) }
          }
          let confirmation = timing.confirmationLocked()
          parts.delivery.handOff { self.parts.delivery.resolve(resolver, confirmation) }
        }, failure: { error in self.parts.delivery.handOff { resolver.reject(error) } })
    }
  }

  /// Runs `body` with the lock held and the open stream, for an operation named `name` that settles through
  /// the resolver; fails at once when no stream is ready.
  private func withOpenStream<T: Sendable>(
    _ name: String, _ body: @escaping (OpaquePointer, Future<T, PlayerError>.Resolver) -> Void
  ) -> Future<T, PlayerError> {
    let (future, resolver) = Future<T, PlayerError>.pending()
    parts.loop.locked {
      guard let stream = parts.current.session?.stream, pa_stream_get_state(stream) == PA_STREAM_READY else {
        return parts.delivery.handOff { resolver.reject(PulseRequests.noStream(name)) }
      }
      body(stream, resolver)
    }
    return future
  }
}
