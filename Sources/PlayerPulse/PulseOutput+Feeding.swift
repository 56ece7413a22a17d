import CPulseAudio
import Dispatch
import Futures
import PlayerCore

// The audio path: decoding into the ring, writing to the server, prefill and drain.
extension PulseOutput {
  /// Writes what the ring holds into the server's buffer. Runs on the mainloop thread (write callback) or
  /// with the lock held.
  func pumpLocked() {
    assertLocked()
    guard let session, pa_stream_get_state(session.stream) == PA_STREAM_READY else { return }
    let (stream, ring) = (session.stream, session.ring)
    let frameBytes = ring.frameBytes
    var writable = pa_stream_writable_size(stream)
    while writable >= frameBytes, ring.availableFrames > 0 {
      var data: UnsafeMutableRawPointer?
      var bytes = writable
      guard pa_stream_begin_write(stream, &data, &bytes) == 0, let data, bytes >= frameBytes else { break }
      let (frames, crossing) = ring.pop(into: data, maxFrames: bytes / frameBytes)
      guard frames > 0 else {
        pa_stream_cancel_write(stream)
        break
      }
      pa_stream_write(stream, data, frames * frameBytes, nil, 0, PA_SEEK_RELATIVE)
      if let crossing {
        self.session?.gapless.written(before: clock.writtenFrames + Int64(crossing))
        scheduleBoundaryCheckLocked()
      }
      clock.wrote(frames)
      writable = pa_stream_writable_size(stream)
    }
    advanceIfBoundaryPlayedLocked()
    if ring.drained {
      // Not before an `open` took the stream: a stream prepared to play has nobody to tell of its end yet.
      if let session = self.session, session.running, session.draining == nil, lineage.firstOpenCame {
        shrinkBufferLocked()
        drainNearTheEndLocked(stream)
      }
    } else {
      scheduleFillLocked()
    }
  }

  /// The whole track is at the server: drains once at most `targetLatency` of it is left to play. With the
  /// steady buffer the server takes the rest of a track seconds before it plays; a next track offered meanwhile
  /// (``prepareNext(_:following:)``) must still follow it. The wait is timed once, by the server's clock now: a
  /// clock that stalls (a sink that took the audio in one long block) must not hold the drain back for good.
  private func drainNearTheEndLocked(_ stream: OpaquePointer) {
    guard !timers.drain.isPending else { return }
    let lead = UInt64(configuration.targetLatency * 1e6)
    guard let end = clock.writtenEnd, let context = connection.context, let usec = streamClockLocked() else {
      return startDrainLocked()
    }
    guard end > usec + lead else { return startDrainLocked() }
    let ring = session?.ring
    timers.drain.schedule(at: pa_rtclock_now() + (end - usec - lead), on: context) { [weak self] in
      // Still the same track's end, still playing: a cork, seek or next track since then decides anew.
      guard let self, let session, session.running, session.draining == nil, lineage.firstOpenCame,
        session.ring === ring,
        session.ring.drained
      else { return }
      startDrainLocked()
    }
  }

  private func startDrainLocked() {
    guard let stream = session?.stream else { return }
    let operation = issueLocked(
      "drain", start: { done in pa_stream_drain(stream, PulseOperation.streamCallback, done) },
      completion: { [self] ok in
        session?.draining = nil
        guard ok, var session, session.running else { return }
        session.running = false
        session.endConfirmed = true
        self.session = session
        // A track whose file could not be read to the end stopped where its audio did, not at the length
        // its header declared: that is the position to confirm, with the reason; so did a live stream.
        let info = session.decoder.info
        let failure = session.readFailure
        let end =
          failure == nil && !info.isLive ? info.duration : Double(session.ring.frame) / Double(info.sampleRate)
        let confirmation = OutputConfirmation(
          position: end, time: Self.now(), running: false, streamNumber: lineage.current)
        clock.ended(at: end)
        let event: OutputEvent = failure.map { .trackFailed($0, confirmation) } ?? .trackFinished(confirmation)
        announceLocked(event)
      }, failure: { _ in })
    session?.draining = operation
  }

  /// Cancels the drain, or the wait before it (lock held).
  func cancelDrainLocked() {
    timers.drain.cancel()
    guard let operation = session?.draining else { return }
    session?.draining = nil
    requests.cancel(operation)
  }

  /// Decodes more audio on the decoding queue once the ring is down to its low-water mark (or at once with
  /// `evenAboveTheMark`), unless a fill is already on its way.
  func scheduleFillLocked(evenAboveTheMark: Bool = false) {
    assertLocked()
    guard let ring = session?.ring, evenAboveTheMark || ring.wantsRefill else { return }
    decoding.scheduleFill { [self] in
      // Which decoder feeds the ring is decided when the fill runs, not when it was asked for: a fill still
      // queued behind the one that crossed into the next track would otherwise read the finished track, find
      // its end, and mark the end of the stream there (the next track's last 0.5 s was lost so).
      let source = locked { () -> (any AudioDecoder)? in
        guard let session, session.ring === ring else { return nil }
        return session.gapless.feedingUpcoming ? session.gapless.upcoming : session.decoder
      }
      guard let source else { return }
      fill(ring: ring, decoder: source)
    }
  }

  /// Moves the decoder to `frame` and refills the ring from there, on the decoding queue. A decoder that cannot
  /// go there goes back to `fallback` (where the audio was) instead; one that cannot go anywhere leaves the ring
  /// empty at its end, to be reported as the track's failure. `landed` hears where the ring starts (lock held,
  /// before the first audio is decoded), so that nothing confirms a frame the audio does not start at.
  func refillLocked(
    from frame: Int64, orBackTo fallback: Int64, ring: SampleRing, decoder: any AudioDecoder,
    landed: @escaping @Sendable (SeekLanding) -> Void = { _ in }
  ) {
    assertLocked()
    decoding.async { [self] in
      let landing = SeekLanding(seeking: decoder, to: frame, orBackTo: fallback)
      let current = locked { () -> Bool in
        guard session?.ring === ring else { return false }
        // The titles were placed in audio that will not play now.
        session?.titles.removeAll()
        session?.readFailure = landing.frame == nil ? landing.error : nil
        landed(landing)
        return true
      }
      guard current else { return }
      let generation = ring.reset(toFrame: landing.frame ?? fallback)
      guard landing.frame != nil else {
        _ = ring.push(UnsafeRawBufferPointer(start: nil, count: 0), generation: generation, endOfTrack: true)
        return locked { if session?.ring === ring { handOverLocked(ring) } }
      }
      fill(ring: ring, decoder: decoder)
    }
  }

  /// Decodes until the ring is full or the track ends, handing the audio to the server after the first two
  /// chunks and at the end. Runs on the decoding queue, never on the mainloop thread.
  private func fill(ring: SampleRing, decoder: any AudioDecoder) {
    decoding.assertOnQueue()
    // The first audio after a seek or start must not wait for the whole ring to be decoded: it is handed
    // over after two chunks, and the rest follows in the same call rather than in one wake-up per chunk.
    let chunk = 4096
    let handOverAfter = 2
    let width = ring.sampleBytes
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk * ring.channels * width, alignment: 8)
    defer { scratch.deallocate() }
    // In the ring's format: every decoder of one ring has the same one (``prepareNext(_:following:)``).
    func decode(_ source: any AudioDecoder, _ frames: Int) throws(PlayerError) -> Int {
      width == 2
        ? try source.read(into: scratch.bindMemory(to: Int16.self), frames: frames)
        : try source.read(into: scratch.bindMemory(to: Float.self), frames: frames)
    }
    var wrote = false
    var chunks = 0
    var source = decoder
    // With the steady buffer the server holds seconds: an early hand-over would only wake the loop thread once
    // more for the same request.
    let (corkedFill, handOverEarly) = locked {
      (
        buffer.corkedFillFrames(sampleRate: sampleRate), buffer.handsOverEarly(running: session?.running ?? false)
      )
    }
    while true {
      let (generation, free, ended) = ring.fillState
      guard !ended, free > 0 else { break }
      // A corked stream needs no more than the server's buffer takes and the first writes after the uncork:
      // the rest of the ring is decoded once it plays (the uncork pumps, and the pump refills). Decoding
      // seconds ahead first would take the CPU from the start-up, or from a seek, that waits for the uncork.
      // Checked before each chunk: the fills a corked pump asks for must not add two chunks each.
      if ring.availableFrames >= corkedFill, !locked({ session?.running ?? false }) { break }
      let want = min(free, chunk)
      var frames: Int
      var failed = false
      do {
        frames = try decode(source, want)
        let notices = source.takeNotices()
        if !notices.isEmpty {
          let path = source.info.path
          locked { for notice in notices { announceLocked(.notice("\(path): \(notice)")) } }
        }
        if frames > 0 {
          let changes = source.takeTitleChanges()
          if !changes.isEmpty { locked { noteTitleChangesLocked(changes, ring: ring, decoder: source) } }
        }
      } catch {
        // What was decoded still plays; the end of the track is then reported with this error (and the next
        // track, even if offered, takes the usual path so that the failure is about the right track).
        locked { if session?.ring === ring { session?.readFailure = error } }
        frames = 0
        failed = true
      }
      if frames == 0, !failed,
        let (next, rewind) = locked({ continueWithUpcomingLocked(ring: ring, generation: generation) })
      {
        // Gapless: the next track's first frames go into the ring right behind this track's last.
        if rewind { _ = try? next.seek(toFrame: 0) }
        source = next
        frames = (try? decode(source, want)) ?? 0
      }
      let slice = UnsafeRawBufferPointer(rebasing: scratch[0..<(frames * ring.channels * width)])
      guard ring.push(slice, generation: generation, endOfTrack: frames == 0) else { break }
      wrote = true
      chunks += 1
      if frames == 0 { break }
      if handOverEarly, chunks == handOverAfter {
        locked { if session?.ring === ring { handOverLocked(ring) } }
        wrote = false
      }
    }
    // Also when nothing was written: a prefill that waits on a ring another fill completed is answered here.
    locked {
      guard session?.ring === ring else { return }
      if wrote { handOverLocked(ring) } else { releasePrefillWaitersLocked(ring) }
    }
  }

  /// Gives the server what the ring holds and answers the prefills it satisfies (decoding queue, lock held).
  private func handOverLocked(_ ring: SampleRing) {
    pumpLocked()
    releasePrefillWaitersLocked(ring)
  }

  /// Resolves once a first buffer of audio is there, in the ring or already written to the server (or the
  /// whole rest of the track is). It does not wait for the ring to be full: the decoding queue hands the
  /// waiters over with its first chunks, so a start or a seek waits for 50 ms of audio, not for two seconds.
  func prefill() -> Future<Void, PlayerError> {
    let (future, resolver) = Future<Void, PlayerError>.pending()
    let ready = locked { () -> Bool in
      guard let ring = session?.ring else {
        handOff { resolver.reject(Self.noStream("start")) }
        return false
      }
      if prefilledLocked(ring) { return true }
      session?.waiters.waitForPrefill(resolver)
      // A fill normally is on its way (opening and seeking start one); this makes sure of it.
      scheduleFillLocked(evenAboveTheMark: true)
      return false
    }
    // Resolved here, on the caller's thread and outside the lock: handing an audio that is already there to
    // the delivery executor cost a resume a thread hand-over before its uncork could even be sent.
    if ready { resolver.resolve() }
    return future
  }

  /// Enough audio to start: 50 ms in the ring or already in the server's buffer, or the end of the track.
  private func prefilledLocked(_ ring: SampleRing) -> Bool {
    let wanted = max(1, Int64(Double(sampleRate) * 0.05))
    return clock.writtenFrames + Int64(ring.availableFrames) >= wanted || ring.fillState.endOfTrack
  }

  /// Runs `action` (lock held) once the open stream's ring holds its first audio, at once when it does already;
  /// with `false` when the stream goes first.
  func whenPrefilledLocked(_ action: @escaping (Bool) -> Void) {
    guard let ring = session?.ring else { return action(false) }
    if prefilledLocked(ring) { return action(true) }
    session?.waiters.whenPrefilled(action)
    scheduleFillLocked(evenAboveTheMark: true)
  }

  /// Resolves the prefill waiters once the decoder has handed over enough audio (decoding queue, lock held).
  private func releasePrefillWaitersLocked(_ ring: SampleRing) {
    guard session?.waiters.awaitsPrefill == true, prefilledLocked(ring),
      let (resolvers, actions) = session?.waiters.takePrefill()
    else { return }
    for action in actions { action(true) }
    if !resolvers.isEmpty { handOff { for resolver in resolvers { resolver.resolve() } } }
  }
}
