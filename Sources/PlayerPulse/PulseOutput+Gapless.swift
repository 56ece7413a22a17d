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

  /// Moves on to the upcoming track once the server has played the boundary
  /// (``StreamSession/crossBoundaryIfPlayed(leaving:at:)``): confirmations carry a new stream number from then
  /// on, and the controller is told.
  func advanceIfBoundaryPlayedLocked() {
    assertLocked()
    let previous = lineage.current
    guard let track = session?.crossBoundaryIfPlayed(leaving: previous, at: Self.now()), let session else { return }
    let number = lineage.begin()
    let confirmation = OutputConfirmation(
      position: session.clock.position, time: Self.now(), running: session.running, streamNumber: number,
      advance: session.gapless.lastAdvance)
    delivery.announce(.trackAdvanced(from: previous, confirmation, track: track))
  }

  /// Checks again just after the server's clock should have reached the boundary (write callbacks alone may
  /// come too seldom to notice it within a few milliseconds). Only while playing and with a fresh clock
  /// (``StreamSession/boundaryWait()``): `start` schedules the check again.
  func scheduleBoundaryCheckLocked() {
    guard let context = connection.context, let wait = session?.boundaryWait() else { return }
    let expected = lineage.current
    timers.boundary.schedule(at: pa_rtclock_now() + pa_usec_t(wait * 1e6) + 2_000, on: context) { [weak self] in
      guard let self, lineage.current == expected else { return }
      advanceIfBoundaryPlayedLocked()
      if lineage.current == expected { scheduleBoundaryCheckLocked() }
    }
  }
}
