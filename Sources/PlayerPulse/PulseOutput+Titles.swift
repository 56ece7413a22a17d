import CPulseAudio
import PlayerCore

// A live stream's titles (ICY `StreamTitle`), published when the server plays their audio.
extension PulseOutput {
  /// Takes the title changes `decoder` decoded into `ring` (decoding queue, lock held), when it is still the
  /// track being heard, and watches for the first of them to be played.
  func noteTitleChangesLocked(_ changes: [TitleChange], ring: SampleRing, decoder: any AudioDecoder) {
    guard !changes.isEmpty, session?.ring === ring else { return }
    session?.note(changes, from: decoder)
    scheduleTitleCheckLocked()
  }

  /// Checks just after the server's clock should have reached the next title's audio. Only while playing: a
  /// corked stream's clock stands still, and `start` schedules the check again.
  func scheduleTitleCheckLocked() {
    guard let context = connection.context, session?.titles.isEmpty == false else { return }
    // A gapless boundary the server played comes first: the position then counts from the next track.
    advanceIfBoundaryPlayedLocked()
    guard let wait = session?.titleWait(at: Self.now()) else { return }
    let expected = lineage.current
    timers.title.schedule(at: pa_rtclock_now() + pa_usec_t(wait * 1e6) + 2_000, on: context) { [weak self] in
      guard let self, lineage.current == expected else { return }
      announceHeardTitlesLocked()
      scheduleTitleCheckLocked()
    }
  }

  /// Publishes each title whose audio the server has played, with the position it was heard at.
  private func announceHeardTitlesLocked() {
    let position = positionLocked()
    guard let titles = session?.titles.heard(by: position) else { return }
    for title in titles {
      delivery.announce(.titleChanged(title, confirmationLocked()))
    }
  }
}
