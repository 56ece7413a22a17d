import PlayerCore
import Testing

/// How the pure state machine takes a gapless track change (`trackAdvanced`) reported by the output.
@Suite struct GaplessStateMachineTests {
  private func track(_ path: String) -> TrackInfo {
    TrackInfo(path: path, format: "FLAC", sampleRate: 44_100, channels: 2, frames: 132_300)
  }

  /// A machine playing the first of `queue` on stream 7, confirmed at time 1,000.
  private func playing(_ queue: [String]) -> PlayerStateMachine {
    var machine = PlayerStateMachine()
    let open = OutputStep.open(queue: TrackQueue(queue), index: 0, seconds: 0, then: .playing)
    let confirmation = OutputConfirmation(position: 0, time: 1_000, running: true, streamNumber: 7)
    _ = machine.answer(open, .success(.confirmed(confirmation, track: track(queue[0])))).published
    return machine
  }

  @Test func theNextTrackIsOfferedWithTheStreamItFollows() {
    let machine = playing(["a.flac", "b.flac"])
    let upcoming = machine.upcoming
    #expect(upcoming?.path == "b.flac")
    #expect(upcoming?.index == 1)
    #expect(upcoming?.following == 7)
    #expect(playing(["a.flac"]).upcoming == nil, "nothing follows the last track")
  }

  /// Opening a URL connects, and the connection would idle for the whole track before it: a stream is never
  /// offered ahead of time, and nothing is offered after a live one (it has no end to follow).
  @Test func streamsAreNeitherOfferedNorFollowed() {
    #expect(playing(["a.flac", "http://radio.example/live"]).upcoming == nil)
    #expect(playing(["a.flac", "HTTPS://radio.example/live", "c.flac"]).upcoming == nil)
    var live = PlayerStateMachine()
    let open = OutputStep.open(queue: ["http://radio.example/live", "b.flac"], index: 0, seconds: 0, then: .playing)
    let confirmation = OutputConfirmation(position: 0, time: 1_000, running: true, streamNumber: 7)
    var info = track("http://radio.example/live")
    info.isLive = true
    info.frames = 0
    _ = live.answer(open, .success(.confirmed(confirmation, track: info))).published
    #expect(live.state.track?.isLive == true)
    #expect(live.upcoming == nil)
    #expect(playing(["a.flac", "http://radio.example/file.flac"]).upcoming == nil)
  }

  @Test func anAdvanceFromTheCurrentStreamMovesToTheNextTrack() {
    var machine = playing(["a.flac", "b.flac", "c.flac"])
    let confirmation = OutputConfirmation(position: 0.004, time: 5_000, running: true, streamNumber: 8)
    let reaction = machine.handle(.trackAdvanced(from: 7, confirmation, track: track("b.flac")))
    guard case .publish(let state) = reaction else {
      Issue.record("expected a published state, got \(reaction)")
      return
    }
    #expect(state.status == .playing)
    #expect(state.index == 1)
    #expect(state.track?.path == "b.flac")
    #expect(state.position.seconds == 0.004)
    #expect(state.position.rate == 1)
    #expect(machine.upcoming?.path == "c.flac")
    #expect(machine.upcoming?.following == 8, "the next offer follows the new stream")
    // The end of the new track is about stream 8 now, and is not stale.
    let end = OutputConfirmation(position: 3, time: 9_000, running: false, streamNumber: 8)
    #expect(machine.handle(.trackFinished(end)) != .ignore)
  }

  @Test func anAdvanceFromAnotherStreamIsStale() {
    var machine = playing(["a.flac", "b.flac"])
    let before = machine.state
    let confirmation = OutputConfirmation(position: 0.1, time: 5_000, running: true, streamNumber: 4)
    #expect(machine.handle(.trackAdvanced(from: 3, confirmation, track: track("b.flac"))) == .ignore)
    #expect(machine.state == before)
  }

  @Test func aPauseConfirmedAfterTheBoundaryKeepsItsPosition() {
    var machine = playing(["a.flac", "b.flac"])
    // The pause reached the server just after the boundary: its confirmation already counts from b's start.
    let paused = OutputConfirmation(position: 0.2, time: 6_000, running: false, streamNumber: 8)
    _ = machine.answer(.pause, .success(.confirmed(paused, track: nil))).published
    let advanced = OutputConfirmation(position: 0.15, time: 5_500, running: true, streamNumber: 8)
    guard case .publish(let state) = machine.handle(.trackAdvanced(from: 7, advanced, track: track("b.flac")))
    else {
      Issue.record("the track change was not published")
      return
    }
    #expect(state.status == .paused)
    #expect(state.track?.path == "b.flac")
    #expect(state.position.seconds == 0.2, "the later confirmation wins")
    #expect(state.position.rate == 0)
  }
}
