import PlayerCore
import PlayerTestSupport
import Testing

/// A saved session brought back (``PlayerStateMachine/restoration(queue:index:seconds:)``): its track opens
/// corked at its position and reads `paused`; what cannot be restored is refused and changes nothing.
@Suite struct RestorationTests {
  @Test func theTrackOpensPausedAtItsPosition() {
    let machine = PlayerStateMachine(shuffleSeed: 1)
    #expect(
      machine.restoration(queue: ["a.flac", "b.flac"], index: 1, seconds: 12.5)
        == .perform(.open(queue: ["a.flac", "b.flac"], index: 1, seconds: 12.5, then: .paused)))
  }

  /// Rows: the queue's length, the index, the position, and the decision.
  @Test(arguments: [
    (0, 0, 1.0, PlayerStateMachine.Decision.reject(.invalidState(command: "restore", state: "for track 1 of 0"))),
    (2, 2, 1.0, .reject(.invalidState(command: "restore", state: "for track 3 of 2"))),
    (2, -1, 1.0, .reject(.invalidState(command: "restore", state: "for track 0 of 2"))),
    (2, 0, -3.0, .perform(.open(queue: ["0.flac", "1.flac"], index: 0, seconds: 0, then: .paused))),
    (2, 0, .nan, .perform(.open(queue: ["0.flac", "1.flac"], index: 0, seconds: 0, then: .paused))),
  ])
  func aRestoration(count: Int, index: Int, seconds: Double, expected: PlayerStateMachine.Decision) {
    let queue = (0..<count).map { "\($0).flac" }
    #expect(PlayerStateMachine(shuffleSeed: 1).restoration(queue: queue, index: index, seconds: seconds) == expected)
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
