import PlayerCore
import Testing

/// What "back" (the live view's `p`) means, row by row: the previous track early in a track, the track's start
/// later or when no track comes before it in play order; and when a refresh asks the output at all.
@Suite struct PreviousOrRestartTests {
  private static let queue: TrackQueue = ["a.flac", "b.flac", "c.flac"]
  private static let track = TrackInfo(path: "b.flac", format: "FLAC", sampleRate: 44_100, channels: 2, frames: 441_000)
  private static let second: UInt64 = 1_000_000_000

  private static func machine(
    _ status: PlaybackStatus, at seconds: Double, index: Int = 1, repeatMode: RepeatMode = .off
  ) -> PlayerStateMachine {
    var state = PlayerState(
      status: status, track: track,
      position: ConfirmedPosition(seconds: seconds, confirmedAt: second, rate: status == .playing ? 1 : 0),
      volume: 100, queue: queue, index: index)
    state.repeatMode = repeatMode
    return PlayerStateMachine(state: state, shuffleSeed: 1)
  }

  /// Rows: status, confirmed position, seconds after that confirmation, track index, repeat mode, and "back".
  @Test(arguments: [
    (PlaybackStatus.playing, 1.0, 0.5, 1, RepeatMode.off, PlayerCommand.previous),
    (.playing, 2.5, 0.4, 1, .off, .previous),
    (.playing, 2.5, 1.0, 1, .off, .seek(.absolute(0))),
    (.paused, 3.0, 10.0, 1, .off, .previous),
    (.paused, 3.1, 0.0, 1, .off, .seek(.absolute(0))),
    (.stopped, 0.0, 5.0, 1, .off, .previous),
    (.paused, 1.0, 0.0, 0, .off, .seek(.absolute(0))),
    (.paused, 1.0, 0.0, 0, .all, .previous),
    (.paused, 9.0, 0.0, 0, .all, .seek(.absolute(0))),
  ])
  func back(
    status: PlaybackStatus, seconds: Double, later: Double, index: Int, repeatMode: RepeatMode,
    expected: PlayerCommand
  ) {
    let machine = Self.machine(status, at: seconds, index: index, repeatMode: repeatMode)
    let now = Self.second + UInt64(later * Double(Self.second))
    #expect(machine.previousOrRestart(at: now) == expected)
  }

  /// With shuffle on, the current track is first in the shuffled order: nothing comes before it, whatever its
  /// place in the queue, so "back" restarts it (a `previous` would be refused).
  @Test func withShuffleTheFirstTrackOfTheOrderRestarts() {
    var machine = Self.machine(.playing, at: 1)
    guard case .complete(let shuffled?) = machine.decide(.shuffle(true)) else {
      Issue.record("shuffle on is a completed change")
      return
    }
    _ = machine.apply(shuffled)
    #expect(machine.previousOrRestart(at: Self.second) == .seek(.absolute(0)))
    #expect(machine.indexInPlayOrder(from: 1, by: -1) == nil)
  }

  /// Rows: status, and whether a refresh asks the output for the position.
  @Test(arguments: [
    (PlaybackStatus.idle, false), (.playing, true), (.paused, true), (.stopped, true), (.ended, false),
    (.failed(.outputLost(detail: "gone")), false),
  ])
  func refresh(status: PlaybackStatus, asks: Bool) {
    let state = PlayerState(
      status: status, track: status == .idle ? nil : Self.track, position: .zero, volume: 100,
      queue: status == .idle ? [] : Self.queue, index: status == .idle ? nil : 1)
    #expect(PlayerStateMachine(state: state, shuffleSeed: 1).refresh() == (asks ? .perform(.status) : .complete(nil)))
  }
}
