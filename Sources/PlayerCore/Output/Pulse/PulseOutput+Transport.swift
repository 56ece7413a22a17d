import CPulseAudio
import Futures

// Start, pause, seek and stop: the stream operations whose acknowledgements move the confirmed state.
extension PulseOutput {
  /// Uncorks once the ring holds audio; resolves on the server's acknowledgement.
  public func start() -> Future<OutputConfirmation, PlayerError> {
    prefill().flatMap { [self] _ in
      confirmedStreamOperation("start", start: uncorkLocked) { [self] in
        startedLocked()
        return confirmationLocked()
      }
    }
  }

  /// Writes what the ring holds, then asks the server to uncork (lock held): the audio is there when it starts.
  func uncorkLocked(_ stream: OpaquePointer, _ done: UnsafeMutableRawPointer) -> OpaquePointer? {
    pumpLocked()
    let operation = pa_stream_cork(stream, 0, PulseOperation.streamCallback, done)
    requestTimingLocked()
    return operation
  }

  /// The server acknowledged an uncork (mainloop thread): audio flows, the ring is topped up and a gapless
  /// boundary is watched for again.
  func startedLocked() {
    positionFilter.resumed(at: Self.now())
    running = true
    scheduleTimingLocked(restart: true)
    pumpLocked()
    scheduleBoundaryCheckLocked()
  }

  /// Corks, and confirms with the position from the first timing update the server answers after the cork:
  /// that update is requested right behind the cork, so it is taken once the stream had stopped, and the
  /// position it gives is where the audio stopped.
  public func pause() -> Future<OutputConfirmation, PlayerError> {
    withOpenStream("pause") { [self] stream, resolver in
      let cork = CorkOutcome { [self] result in
        guard case .failure(let error) = result else {
          let confirmation = confirmationLocked()
          return handOff { self.resolve(resolver, confirmation) }
        }
        handOff { resolver.reject(error) }
      }
      issueLocked(
        "pause",
        start: { [self] done in
          let operation = pa_stream_cork(stream, 1, PulseOperation.streamCallback, done)
          requestTimingLocked()
          shrinkBufferLocked()
          return operation
        },
        completion: { [self] ok in
          guard ok else { return cork.fail(.outputFailed(operation: "pause", detail: lastErrorLocked())) }
          running = false
          // Not even one more firing to find the stream corked: a paused player does not wake.
          timingTimer.cancel()
          cancelDrainLocked()
          corksAwaitingTiming.append(cork)
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
  /// (nil: as it was).
  private func reposition(to seconds: Double, name: String, resume: Bool?) -> Future<OutputConfirmation, PlayerError> {
    withOpenStream(name) { [self] stream, resolver in
      guard let ring, let decoder else { return handOff { resolver.reject(Self.noStream(name)) } }
      let wasRunning = running
      let target = min(max(Int64((seconds * Double(sampleRate)).rounded()), 0), decoder.info.frames)
      cancelDrainLocked()
      endConfirmed = false
      ring.invalidate()
      running = false
      // Back into the current track: the next one, if it was being decoded already, starts over later.
      gapless.repositioned()
      if wasRunning {
        issueLocked(
          name + " (cork)", start: { done in pa_stream_cork(stream, 1, PulseOperation.streamCallback, done) },
          completion: { _ in }, failure: { _ in })
        shrinkBufferLocked()
      }
      issueLocked(
        name + " (flush)", start: { done in pa_stream_flush(stream, PulseOperation.streamCallback, done) },
        completion: { [self] ok in
          guard ok else {
            let error = PlayerError.outputFailed(operation: name, detail: lastErrorLocked())
            return handOff { resolver.reject(error) }
          }
          writtenFrames = 0
          refillLocked(from: target, ring: ring, decoder: decoder)
          anchorAfterFlushLocked(seconds: Double(target) / Double(sampleRate)) { [self] result in
            if case .failure(let error) = result { return handOff { resolver.reject(error) } }
            let restart = resume ?? wasRunning
            guard restart else {
              let confirmation = OutputConfirmation(
                position: anchorSeconds, time: Self.now(), running: false, stream: streamNumber)
              return handOff { self.resolve(resolver, confirmation) }
            }
            handOff {
              self.start().whenComplete { outcome in
                switch outcome {
                case .success(let confirmation): self.resolve(resolver, confirmation)
                case .failure(let error): resolver.reject(error)
                case .cancelled: resolver.reject(.cancelled)
                }
              }
            }
          }
        }, failure: { error in self.handOff { resolver.reject(error) } })
    }
  }

  /// Reads the stream's position and state from a fresh timing update.
  public func status() -> Future<OutputConfirmation, PlayerError> {
    confirmedStreamOperation(
      "status", start: { stream, ticket in pa_stream_update_timing_info(stream, PulseOperation.streamCallback, ticket) }
    )
  }
}
