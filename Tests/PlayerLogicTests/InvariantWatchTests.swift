import PlayerCore
import Testing

@testable import PlayerScripts

/// `check always position-advances` and `no-underrun`, row by row: a published position must be the one the
/// state before it let a player estimate (within 50 ms) unless a command moved it; an underflow is a violation.
@Suite final class InvariantWatchTests {
  static let track = TrackInfo(
    path: "/music/a.flac", format: "FLAC", sampleRate: 44_100, channels: 2, frames: 441_000, title: "A")

  /// A state of `status` at `seconds`, confirmed at `at` seconds, moving at rate 1 while playing.
  private func state(_ status: PlaybackStatus, _ seconds: Double, at: Double, index: Int = 0) -> PlayerState {
    revision += 1
    return PlayerState(
      status: status, track: Self.track,
      position: ConfirmedPosition(
        seconds: seconds, confirmedAt: UInt64(at * 1e9), rate: status == .playing ? 1 : 0),
      queue: ["/music/a.flac", "/music/b.flac"], index: index, revision: revision)
  }

  private var revision: UInt64 = 0

  @Test(arguments: [
    // Playing on: the position moved with the clock.
    ([(PlaybackStatus.playing, 1.0, 10.0), (.playing, 1.5, 10.5)], false, nil as String?),
    // A pause where the audio was; the paused position holds.
    ([(.playing, 1.0, 10.0), (.paused, 1.52, 10.5), (.paused, 1.52, 20.0)], false, nil),
    // Resumed where it paused.
    ([(.paused, 1.5, 10.0), (.playing, 1.5, 11.0), (.playing, 2.0, 11.5)], false, nil),
    // Ran ahead of the audio (a view following it showed 1.5 s while 2.0 s was heard, or the reverse).
    (
      [(.playing, 1.0, 10.0), (.playing, 2.0, 10.5)], false,
      "playing at 2 s where the state before (playing at 1 s) led to 1.5 s"
    ),
    ([(.playing, 1.0, 10.0), (.playing, 1.2, 10.5)], false, "led to 1.5 s"),
    // A paused position that moved.
    ([(.paused, 3.0, 10.0), (.paused, 3.2, 11.0)], false, "paused at 3.2 s"),
    // A seek moved it on purpose.
    ([(.playing, 1.0, 10.0), (.playing, 8.0, 10.5)], true, nil),
  ])
  func aPositionIsTheOneTheStateBeforeLedTo(
    states: [(PlaybackStatus, Double, Double)], repositions: Bool, violation: String?
  ) {
    let watch = InvariantWatch([.positionAdvances], underflows: { 0 })
    watch.observe(state(states[0].0, states[0].1, at: states[0].2))
    let moved = states.dropFirst().map { state($0.0, $0.1, at: $0.2) }
    // The command that moved it was confirmed with its state, which an observer may see only afterwards.
    if repositions { watch.moved(through: moved[0].revision) }
    for next in moved { watch.observe(next) }
    let seen = watch.takeViolation()
    if let violation {
      #expect(seen?.contains(violation) == true, "\(String(describing: seen))")
    } else {
      #expect(seen == nil)
    }
  }

  /// On virtual time the observer sees the seek's state before the runner hears the seek confirmed.
  @Test func aMoveConfirmedAfterItsStateWasSeenIsNoViolation() {
    let watch = InvariantWatch([.positionAdvances], underflows: { 0 })
    watch.observe(state(.playing, 1.0, at: 10))
    let sought = state(.playing, 5.0, at: 10.5)
    watch.observe(sought)
    watch.moved(through: sought.revision)
    #expect(watch.takeViolation() == nil)
    watch.observe(state(.playing, 6.5, at: 11.0))
    #expect(
      watch.takeViolation()?.contains("playing at 6.5 s where the state before (playing at 5 s) led to 5.5 s")
        == true)
  }

  @Test func anotherTrackStartsAfresh() {
    let watch = InvariantWatch([.positionAdvances], underflows: { 0 })
    watch.observe(state(.playing, 2.9, at: 10))
    watch.observe(state(.playing, 0.1, at: 10.2, index: 1))
    #expect(watch.takeViolation() == nil)
  }

  @Test func anUnderflowDuringALineIsAViolationOnce() {
    let count = EventCounter()
    let watch = InvariantWatch([.noUnderrun], underflows: { count.value })
    #expect(watch.takeViolation() == nil)
    count.increment()
    #expect(watch.takeViolation() == "check always no-underrun: the server ran out of audio")
    #expect(watch.takeViolation() == nil, "counted for the line it happened in")
  }
}
