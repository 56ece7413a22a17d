import PlayerCore
import PlayerTestSupport
import Testing

/// A saved session brought back (``PlayerStateMachine/restore(queue:index:seconds:)``) and a lost server
/// recovered from (``PlayerStateMachine/recover()``): the track opens corked at its position and reads `paused`;
/// what cannot be brought back is refused and changes nothing.
@Suite struct RestorationTests {
  @Test func theTrackOpensPausedAtItsPosition() {
    let machine = PlayerStateMachine(shuffleSeed: 1)
    #expect(
      machine.restore(queue: ["a.flac", "b.flac"], index: 1, seconds: 12.5)
        == .perform(.open(queue: ["a.flac", "b.flac"], index: 1, seconds: 12.5, then: .paused)))
  }

  /// Rows: the queue's length, the index, the position, and the decision.
  @Test(arguments: [
    (0, 0, 1.0, PlayerStateMachine.CommandAction.reject(.invalidState(command: "restore", state: "for track 1 of 0"))),
    (2, 2, 1.0, .reject(.invalidState(command: "restore", state: "for track 3 of 2"))),
    (2, -1, 1.0, .reject(.invalidState(command: "restore", state: "for track 0 of 2"))),
    (2, 0, -3.0, .perform(.open(queue: ["0.flac", "1.flac"], index: 0, seconds: 0, then: .paused))),
    (2, 0, .nan, .perform(.open(queue: ["0.flac", "1.flac"], index: 0, seconds: 0, then: .paused))),
  ])
  func aRestoration(count: Int, index: Int, seconds: Double, expected: PlayerStateMachine.CommandAction) {
    let queue = (0..<count).map { "\($0).flac" }
    #expect(PlayerStateMachine(shuffleSeed: 1).restore(queue: queue, index: index, seconds: seconds) == expected)
  }

  /// Rows: the status, whether a track is loaded, and what a reconnection needs.
  @Test(arguments: [
    (
      PlaybackStatus.failed(.outputLost(detail: "gone")), true,
      PlayerStateMachine.CommandAction.perform(
        .open(queue: ["a.flac", "b.flac"], index: 1, seconds: 4, then: .paused))
    ),
    (.failed(.outputLost(detail: "gone")), false, .reject(.invalidState(command: "reconnect", state: "failed"))),
    (.failed(.fileNotFound(path: "b.flac")), true, .reject(.invalidState(command: "reconnect", state: "failed"))),
    (.paused, true, .reject(.invalidState(command: "reconnect", state: "paused"))),
    (.idle, false, .reject(.invalidState(command: "reconnect", state: "idle"))),
  ])
  func aRecovery(status: PlaybackStatus, loaded: Bool, expected: PlayerStateMachine.CommandAction) {
    let state = PlayerState(
      status: status, position: ConfirmedPosition(seconds: 4, confirmedAt: 1, rate: 0), volume: 100,
      queue: loaded ? ["a.flac", "b.flac"] : [], index: loaded ? 1 : nil)
    #expect(PlayerStateMachine(state: state, shuffleSeed: 1).recover() == expected)
  }

  @Test func theControllerPublishesThePausedSessionOnceTheOutputConfirmedIt() async {
    let h = Harness()
    let restored = await h.timeline.settle(
      h.controller.restore(queue: ["a.flac", "long-b.flac"], index: 1, at: 7.5), controller: h.controller)
    guard case .success(let state) = restored else {
      Issue.record("restore failed: \(restored)")
      return
    }
    #expect(state.status == .paused)
    #expect(state.index == 1)
    #expect(state.position.seconds == 7.5)
    #expect(h.output.isRunning == false)
    #expect(await h.run(.play).succeeded)
    #expect(h.controller.state.position.seconds == 7.5)
  }
}
