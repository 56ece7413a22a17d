import CPulseAudio
import Futures
import PlayerCore

/// The stream made before the first `open` (``PulseOutput/prepare(_:playingWhen:)``), uncorked when its
/// ``PreparedStart`` says so, and the `open` that takes it over. Touched only with the mainloop lock held, but for
/// the entry points that take it; lock-confined, hence `@unchecked Sendable`.
final class StreamPreparer: @unchecked Sendable {
  /// The loop, the current stream, the connection, the buffer, the requests and the delivery.
  private let parts: OutputParts
  private let volume: VolumeControl
  private let lifecycle: StreamLifecycle
  private let feed: StreamFeed
  private let timing: StreamTiming
  private let transport: StreamTransport

  /// Prepares `current`'s stream with `lifecycle`, fills it through `feed` and uncorks it through `transport`.
  init(
    parts: OutputParts, volume: VolumeControl, lifecycle: StreamLifecycle, feed: StreamFeed, timing: StreamTiming,
    transport: StreamTransport
  ) {
    self.parts = parts
    self.volume = volume
    self.lifecycle = lifecycle
    self.feed = feed
    self.timing = timing
    self.transport = transport
  }

  /// Makes the stream for `decoder` that the first `open` may take; uncorks it once its first audio is at the
  /// server and `cleared` succeeded, when there is one. See ``PulseOutput/prepare(_:playingWhen:)``.
  func prepare(_ decoder: any AudioDecoder, playingWhen cleared: Future<Void, PlayerError>?) -> Future<
    Void, PlayerError
  > {
    guard let entry = parts.loop.locked({ parts.current.lineage.prepare(decoder, playing: cleared != nil) }) else {
      return .cancelled()
    }
    cleared?.whenComplete { [self] outcome in
      let succeeded: Bool
      if case .success = outcome { succeeded = true } else { succeeded = false }
      let record = { self.performLocked(entry.start.clearanceSettled(succeeded: succeeded), for: entry) }
      // Settled on the mainloop thread, this runs there, where the lock is held already.
      if parts.loop.isCurrentThread { record() } else { parts.loop.locked(record) }
    }
    // The stream is asked for in the callback that reports the handshake done, as a C client would: going
    // through a future there cost a thread hand-over before the stream could even be requested.
    parts.loop.locked {
      parts.connection.whenConnected { [self] connected in
        guard case .success = connected else {
          return parts.delivery.handOff { entry.resolver.settle(with: Outcome(connected)) }
        }
        // Replaced by an `open` of something else meanwhile: that `open` makes its own stream.
        guard !entry.dropped else { return parts.delivery.handOff { entry.resolver.settle(with: .cancelled) } }
        lifecycle.createLocked(for: decoder, at: 0, volume: nil) { result in
          guard case .success = result else {
            entry.start.finish()
            let outcome = entry.dropped ? .cancelled : Outcome(result)
            return self.parts.delivery.handOff { entry.resolver.settle(with: outcome) }
          }
          self.performLocked(entry.start.created(), for: entry)
          if entry.start.followsPrefill {
            self.feed.whenPrefilledLocked { filled in
              self.performLocked(entry.start.prefillEnded(filled: filled), for: entry)
            }
          }
        }
        entry.stream = parts.current.lineage.current
      }
    }
    return entry.ready
  }

  /// Does what the prepared stream's ``PreparedStart`` decided (lock held).
  private func performLocked(_ action: PreparedStart.Action, for entry: PreparedStream) {
    switch action {
    case .wait: return
    case .resolve: parts.delivery.handOff { entry.resolver.resolve() }
    case .cancel: parts.delivery.handOff { entry.resolver.settle(with: .cancelled) }
    case .uncork: uncorkLocked(entry)
    }
  }

  /// Uncorks a stream prepared to play (lock held); its `ready` future settles with the acknowledgement.
  private func uncorkLocked(_ entry: PreparedStream) {
    guard let stream = parts.current.session?.stream, parts.current.lineage.current == entry.stream, !entry.dropped
    else {
      return parts.delivery.handOff { entry.resolver.settle(with: .cancelled) }
    }
    // Let go meanwhile (an `open` of something else replaced it): nobody is told of a failure of the stream.
    let failed: (PlayerError) -> Void = { error in
      let outcome: Outcome<Void, PlayerError> = entry.dropped ? .cancelled : .failure(error)
      self.parts.delivery.handOff { entry.resolver.settle(with: outcome) }
    }
    parts.requests.issue(
      "start", start: { done in transport.uncorkLocked(stream, done) },
      completion: { [self] ok in
        guard ok else { return failed(.outputFailed(operation: "start", detail: parts.connection.lastError())) }
        transport.startedLocked()
        // Settled from the timing update behind the uncork, as `start` is: until then the clock is stale, and
        // a fresh sink's first block (2 s on a null sink) is not yet known to delay the audio.
        timing.waitForMovingClockLocked(
          TimingWaiter { [self] result in
            guard case .failure(let error) = result else { return parts.delivery.handOff { entry.resolver.resolve() } }
            failed(error)
          })
      }, failure: failed)
  }

  /// Opens with the prepared stream `entry`: waits for it and its first audio, and confirms it as it is, which
  /// may be running.
  func open(_ entry: PreparedStream) -> Future<OutputConfirmation, PlayerError> {
    entry.ready.flatMap { [self] _ in feed.prefill() }.map { [self] _ in
      parts.loop.locked {
        // A stream that plays may have taken in all of a short track while nobody listened: its drain begins
        // now that somebody does.
        let running = parts.current.session?.running ?? false
        if running { feed.pumpLocked() }
        var confirmation = timing.confirmationLocked()
        if !running { confirmation.position = 0 }
        confirmation.streamNumber = entry.stream
        confirmation.device = parts.current.session?.deviceName
        confirmation.volume = volume.level
        return confirmation
      }
    }
  }
}
