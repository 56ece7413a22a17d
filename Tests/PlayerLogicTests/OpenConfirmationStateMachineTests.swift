import PlayerCore
import Testing

/// How the pure state machine takes an `open` confirmation: the status follows what the output confirmed, so an
/// output that hands over a stream already playing (`PulseOutput.prepare(_:playingWhen:)`) is published as playing.
@Suite struct OpenConfirmationStateMachineTests {
  private let track = TrackInfo(path: "a.flac", format: "FLAC", sampleRate: 44_100, channels: 2, frames: 441_000)

  private func confirmOpen(then: OutputStep.StatusAfterOpen, running: Bool) -> (PlayerStateMachine, PlayerState?) {
    var machine = PlayerStateMachine()
    let step = OutputStep.open(queue: ["a.flac"], index: 0, seconds: 0, then: then)
    let confirmation = OutputConfirmation(position: running ? 0.012 : 0, time: 2_000, running: running, streamNumber: 1)
    let published = machine.answer(step, .success(.confirmed(confirmation, track: track))).published
    return (machine, published)
  }

  @Test(arguments: [OutputStep.StatusAfterOpen.stopped, .paused, .playing])
  func anOpenConfirmedRunningIsPublishedPlayingFromItsConfirmedPosition(then: OutputStep.StatusAfterOpen) throws {
    let (machine, published) = confirmOpen(then: then, running: true)
    let state = try #require(published)
    #expect(state.status == .playing)
    #expect(state.position.seconds == 0.012 && state.position.rate == 1 && state.position.confirmedAt == 2_000)
    #expect(machine.decide(.play) == .complete(nil), "play while playing needs nothing more")
    #expect(machine.decide(.pause) == .perform(.pause))
  }

  @Test func anOpenConfirmedCorkedIsPublishedAsTheStepAsked() throws {
    #expect(try #require(confirmOpen(then: .stopped, running: false).1).status == .stopped)
    #expect(try #require(confirmOpen(then: .paused, running: false).1).status == .paused)
    let (machine, published) = confirmOpen(then: .stopped, running: false)
    #expect(published?.position.rate == 0)
    #expect(machine.decide(.play) == .perform(.start))
  }
}
