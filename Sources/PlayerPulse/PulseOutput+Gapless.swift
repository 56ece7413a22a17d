import CPulseAudio
import PlayerCore

// Gapless: the next track continues the stream, and the track changes when the server plays the boundary.
extension PulseOutput {
  /// At the current track's end (decoding queue, lock held): when a next track was offered, marks the
  /// boundary in the ring and returns that track's decoder, and whether it must be rewound first.
  func continueWithUpcomingLocked(ring: SampleRing, generation: UInt64) -> (decoder: any AudioDecoder, rewind: Bool)? {
    guard session?.ring === ring, session?.gapless.canContinue == true, ring.markBoundary(generation: generation)
    else { return nil }
    return session?.gapless.startFeeding()
  }

  /// Moves on to the upcoming track once the server has played the boundary: from then on the position counts
  /// from its start, confirmations carry a new stream number, and the controller is told.
  func advanceIfBoundaryPlayedLocked() {
    assertLocked()
    guard var session, session.gapless.boundaryFrames != nil, let usec = streamClockLocked(),
      let (next, boundary) = session.gapless.advance(
        at: usec, anchorStreamTime: clock.anchorStreamTime, sampleRate: sampleRate)
    else { return }
    let previous = lineage.current
    _ = lineage.begin()
    session.decoder = next
    let info = next.info
    session.gapless.began(by: GaplessAdvance(from: previous, track: info))
    self.session = session
    let position = min(Double(usec - boundary.streamTime) / 1e6, info.duration)
    clock.crossed(
      at: boundary.streamTime, writtenBefore: boundary.writtenFrames, seconds: position, running: session.running,
      now: Self.now())
    session.retitle(info)
    let confirmation = OutputConfirmation(
      position: clock.position, time: Self.now(), running: session.running, streamNumber: lineage.current,
      advance: session.gapless.lastAdvance)
    delivery.announce(.trackAdvanced(from: previous, confirmation, track: info))
  }

  /// Checks again just after the server's clock should have reached the boundary (write callbacks alone may
  /// come too seldom to notice it within a few milliseconds). Only while playing: a corked stream's clock
  /// stands still, and `start` schedules the check again.
  func scheduleBoundaryCheckLocked() {
    // A stale clock schedules nothing: the check is scheduled again once it is fresh.
    guard let session, session.running, let context = connection.context, let now = streamClockLocked(),
      let wait = session.gapless.wait(from: now, anchorStreamTime: clock.anchorStreamTime, sampleRate: sampleRate)
    else { return }
    let expected = lineage.current
    timers.boundary.schedule(at: pa_rtclock_now() + pa_usec_t(wait * 1e6) + 2_000, on: context) { [weak self] in
      guard let self, lineage.current == expected else { return }
      advanceIfBoundaryPlayedLocked()
      if lineage.current == expected { scheduleBoundaryCheckLocked() }
    }
  }
}
