import CPulseAudio
import Futures
import PlayerCore

// A stream made before the first `open`, and the `open` that takes it over.
extension PulseOutput {
  /// Creates a corked stream for `decoder` at its first frame and full volume ahead of the `open` that will ask
  /// for exactly that, and starts filling it: that `open` then waits only for what is left of the stream's
  /// creation and prefill. `splay play` prepares its first file while its command line is still being parsed.
  ///
  /// With `playingWhen`, the stream is also uncorked as soon as its first audio is in the server's buffer and
  /// that future has succeeded, as `paplay` starts: for a caller that knows the first command will be to play
  /// this track from its start (`splay play FILE`, whose command line says nothing else), and that is still
  /// finishing its own checks of the file (the future). When the future fails or is cancelled, the stream stays
  /// corked. The `open` that takes a stream prepared to play waits for that future, and for the server's
  /// acknowledgement of the uncork when it succeeded, and confirms a running stream; until an `open` has taken
  /// it, the end of the track is not acted on (nobody would hear of it).
  ///
  /// Nothing is guessed for the controller: the first `open` takes the prepared stream only when it is for the
  /// same decoder object, at 0 s and full volume, and replaces it otherwise (as any `open` replaces the stream,
  /// which silences one that was playing). The `open` that takes it reports what its creation reported, a
  /// failed connection attempt included (the next `open` connects again). No-op once an `open` came or a
  /// stream is prepared.
  ///
  /// - Returns: a future that settles when the server has created the stream — for a stream prepared to play,
  ///   when it acknowledged the uncork or the stream stays corked — or when making it failed; cancelled when
  ///   nothing was prepared or an `open` of something else replaced it first.
  @discardableResult
  public func prepare(_ decoder: any AudioDecoder, playingWhen cleared: Future<Void, PlayerError>? = nil) -> Future<
    Void, PlayerError
  > {
    guard let entry = locked({ lineage.prepare(decoder, playing: cleared != nil) }) else { return .cancelled() }
    cleared?.whenComplete { [self] outcome in
      let succeeded: Bool
      if case .success = outcome { succeeded = true } else { succeeded = false }
      let record = { self.performLocked(entry.start.clearanceSettled(succeeded: succeeded), for: entry) }
      // Settled on the mainloop thread, this runs there, where the lock is held already.
      if loop.isCurrentThread { record() } else { locked(record) }
    }
    // The stream is asked for in the callback that reports the handshake done, as a C client would: going
    // through a future there cost a thread hand-over before the stream could even be requested.
    locked {
      connection.whenConnected { [self] connected in
        guard case .success = connected else {
          return delivery.handOff { entry.resolver.settle(with: Outcome(connected)) }
        }
        // Replaced by an `open` of something else meanwhile: that `open` makes its own stream.
        guard !entry.dropped else { return delivery.handOff { entry.resolver.settle(with: .cancelled) } }
        createStreamLocked(for: decoder, at: 0, volume: nil) { result in
          guard case .success = result else {
            entry.start.finish()
            let outcome = entry.dropped ? .cancelled : Outcome(result)
            return self.delivery.handOff { entry.resolver.settle(with: outcome) }
          }
          self.performLocked(entry.start.created(), for: entry)
          if entry.start.followsPrefill {
            self.whenPrefilledLocked { filled in
              self.performLocked(entry.start.prefillEnded(filled: filled), for: entry)
            }
          }
        }
        entry.stream = lineage.current
      }
    }
    return entry.ready
  }

  /// Does what the prepared stream's ``PreparedStart`` decided (lock held).
  func performLocked(_ action: PreparedStart.Action, for entry: PreparedStream) {
    switch action {
    case .wait: return
    case .resolve: delivery.handOff { entry.resolver.resolve() }
    case .cancel: delivery.handOff { entry.resolver.settle(with: .cancelled) }
    case .uncork: uncorkPreparedLocked(entry)
    }
  }

  /// Uncorks a stream prepared to play (lock held); its `ready` future settles with the acknowledgement.
  func uncorkPreparedLocked(_ entry: PreparedStream) {
    guard let stream = session?.stream, lineage.current == entry.stream, !entry.dropped else {
      return delivery.handOff { entry.resolver.settle(with: .cancelled) }
    }
    // Let go meanwhile (an `open` of something else replaced it): nobody is told of a failure of the stream.
    let failed: (PlayerError) -> Void = { error in
      let outcome: Outcome<Void, PlayerError> = entry.dropped ? .cancelled : .failure(error)
      self.delivery.handOff { entry.resolver.settle(with: outcome) }
    }
    requests.issue(
      "start", start: { done in uncorkLocked(stream, done) },
      completion: { [self] ok in
        guard ok else { return failed(.outputFailed(operation: "start", detail: connection.lastError())) }
        startedLocked()
        // Settled from the timing update behind the uncork, as `start` is: until then the clock is stale, and
        // a fresh sink's first block (2 s on a null sink) is not yet known to delay the audio.
        waitForMovingClockLocked(
          TimingWaiter { [self] result in
            guard case .failure(let error) = result else { return delivery.handOff { entry.resolver.resolve() } }
            failed(error)
          })
      }, failure: failed)
  }

  /// Opens with the prepared stream `entry`: waits for it and its first audio, and confirms it as it is, which
  /// may be running.
  func openPrepared(_ entry: PreparedStream) -> Future<OutputConfirmation, PlayerError> {
    entry.ready.flatMap { [self] _ in prefill() }.map { [self] _ in
      locked {
        // A stream that plays may have taken in all of a short track while nobody listened: its drain begins
        // now that somebody does.
        let running = session?.running ?? false
        if running { pumpLocked() }
        var confirmation = confirmationLocked()
        if !running { confirmation.position = 0 }
        confirmation.streamNumber = entry.stream
        confirmation.device = deviceNameLocked
        confirmation.volume = volume.level
        return confirmation
      }
    }
  }
}
