import Futures
import PlayerCore
import PlayerTestSupport
import Testing

/// The product's rule, proved on the simulated output: the published state changes only when the output
/// confirmed, and every command future settles.
@Suite struct ControllerConsistencyTests {
  @Test func loadOpensTheFirstTrackStoppedAtZero() async {
    let h = Harness()
    let outcome = await h.run(.load(["a.flac", "b.flac"]))
    let state = try? outcome.get()
    #expect(state?.status == .stopped)
    #expect(state?.track?.path == "a.flac")
    #expect(state?.queue == ["a.flac", "b.flac"])
    #expect(state?.index == 0)
    #expect(state?.position.seconds == 0)
    #expect(h.states.map(\.revision) == [1])
  }

  @Test func pauseChangesNothingUntilTheOutputConfirms() async {
    let h = Harness()
    await h.run(.load(["a.flac"]))
    await h.run(.play)
    await h.pass(1)
    h.output.setAcknowledgement(.hold, for: .pause)
    let pause = h.controller.pause()
    await h.idle()
    await h.pass(0.5)
    #expect(pause.outcome == nil)
    #expect(h.controller.state.status == .playing)
    let before = h.states.count
    #expect(h.output.isRunning, "a held cork has not happened at the server yet")
    h.output.releaseHeld()
    let outcome = await h.timeline.settle(pause, controller: h.controller)
    #expect(outcome.value?.status == .paused)
    #expect(h.states.count == before + 1)
    #expect(abs((outcome.value?.position.seconds ?? 0) - 1.5) < 0.001)
  }

  @Test func aRefusedAcknowledgementLeavesTheStateAlone() async {
    let h = Harness()
    await h.run(.load(["a.flac"]))
    await h.run(.play)
    let before = h.controller.state
    h.output.setAcknowledgement(.fail(.outputFailed(operation: "pause", detail: "refused")), for: .pause)
    let outcome = await h.run(.pause)
    #expect(outcome.failureCode == "output-failed")
    #expect(h.controller.state == before)
  }

  @Test func aDroppedAcknowledgementTimesOutAndTheRealStateIsPublished() async {
    let h = Harness(deadline: .seconds(3))
    await h.run(.load(["a.flac"]))
    await h.run(.play)
    h.output.setAcknowledgement(.drop, for: .pause)
    let start = h.clock.now
    let outcome = await h.run(.pause)
    #expect(outcome.failureCode == "timeout")
    #expect(start.duration(to: h.clock.now) >= .seconds(3))
    // The server did cork, only its answer was lost: the re-read publishes paused.
    #expect(h.controller.state.status == .paused)
    #expect(!h.output.isRunning)
  }

  @Test func aNewerSeekCancelsTheOlderOnesStillWaiting() async {
    let h = Harness()
    await h.run(.load(["long.flac"]))
    h.output.setAcknowledgement(.hold, for: .volume)
    let blocker = h.controller.setVolume(50)
    let first = h.controller.seek(to: 5)
    let second = h.controller.seek(to: 10)
    let third = h.controller.seek(to: 20)
    await h.idle()
    #expect(first.outcome?.isCancelled == true)
    #expect(second.outcome?.isCancelled == true)
    #expect(third.outcome == nil)
    h.output.releaseHeld()
    #expect(await h.timeline.settle(blocker, controller: h.controller).succeeded)
    let last = await h.timeline.settle(third, controller: h.controller)
    #expect(last.value?.position.seconds == 20)
  }

  @Test func losingTheServerFailsThePendingCommandAndPublishesFailed() async {
    let h = Harness()
    await h.run(.load(["a.flac"]))
    await h.run(.play)
    h.output.setAcknowledgement(.hold, for: .pause)
    let pause = h.controller.pause()
    await h.idle()
    h.output.loseConnection()
    let outcome = await h.timeline.settle(pause, controller: h.controller)
    #expect(outcome.failureCode == "output-lost")
    await h.idle()
    guard case .failed(let error) = h.controller.state.status else {
      Issue.record("expected failed, got \(h.controller.state.status)")
      return
    }
    #expect(error.code == "output-lost")
    // The next play reconnects at the last confirmed position.
    h.output.restore()
    h.output.setAcknowledgement(.immediate, for: .pause)
    let resumed = await h.run(.play)
    #expect(resumed.value?.status == .playing)
  }

  @Test func commandsThatDoNotApplyFailWithInvalidStateAndChangeNothing() async {
    let h = Harness()
    #expect(await h.run(.pause).failureCode == "invalid-state")
    #expect(await h.run(.seek(.absolute(1))).failureCode == "invalid-state")
    #expect(await h.run(.next).failureCode == "invalid-state")
    #expect(await h.run(.play).failureCode == "invalid-state")
    #expect(h.states.isEmpty)
    await h.run(.load(["a.flac"]))
    #expect(await h.run(.next).failureCode == "invalid-state")
    #expect(await h.run(.previous).failureCode == "invalid-state")
    #expect(await h.run(.jump(toIndex: 3)).failureCode == "invalid-state")
    #expect(h.states.count == 1)
  }

  @Test func idempotentCommandsSucceedWithoutAChange() async {
    let h = Harness()
    await h.run(.load(["a.flac"]))
    await h.run(.play)
    let count = h.states.count
    #expect(await h.run(.play).value?.status == .playing)
    await h.run(.pause)
    #expect(await h.run(.pause).value?.status == .paused)
    #expect(h.states.count == count + 1)
  }

  @Test func seekWhilePausedStaysPausedAndClampsToTheEnd() async {
    let h = Harness()
    await h.run(.load(["a.flac"]))
    await h.run(.play)
    await h.run(.pause)
    let state = await h.run(.seek(.absolute(100))).value
    #expect(state?.status == .paused)
    #expect(state?.position.seconds == 3)
  }

  @Test func aMissingFileFailsTheLoadAndChangesNothing() async {
    let h = Harness()
    await h.run(.load(["a.flac"]))
    let before = h.controller.state
    #expect(await h.run(.load(["missing.flac"])).failureCode == "file-not-found")
    #expect(h.controller.state == before)
  }

  @Test func theQueuePlaysThroughAndEndsOnce() async {
    let h = Harness()
    await h.run(.load(["a.flac", "b.flac", "c.flac"]))
    await h.run(.play)
    let result = await h.timeline.wait(until: { $0.status == .ended }, timeout: 20, controller: h.controller)
    #expect(result.held)
    #expect(h.states.filter { $0.status == .ended }.count == 1)
    #expect(h.states.compactMap(\.index) == [0, 0, 1, 2, 2])
    let played = h.output.played
    #expect(played.map(\.path) == ["a.flac", "b.flac", "c.flac"])
    #expect(played.allSatisfy { $0.startFrame == 0 && $0.endFrame == 3 * 44_100 })
  }

  @Test func aTrackThatCannotBeOpenedIsSkipped() async {
    let h = Harness()
    await h.run(.load(["a.flac", "missing.flac", "c.flac"]))
    await h.run(.play)
    let result = await h.timeline.wait(until: { $0.status == .ended }, timeout: 20, controller: h.controller)
    #expect(result.held)
    #expect(h.output.played.map(\.path) == ["a.flac", "c.flac"])
  }

  @Test func nextWhilePausedOpensTheNextTrackPausedAndPublishesItOnlyOnConfirmation() async {
    let h = Harness()
    await h.run(.load(["a.flac", "b.flac"]))
    await h.run(.play)
    await h.run(.pause)
    h.output.setAcknowledgement(.hold, for: .open)
    let next = h.controller.next()
    await h.idle()
    #expect(h.controller.state.track?.path == "a.flac")
    h.output.releaseHeld()
    let state = await h.timeline.settle(next, controller: h.controller).value
    #expect(state?.track?.path == "b.flac")
    #expect(state?.status == .paused)
    #expect(state?.index == 1)
  }

  @Test func positionFreezesWhilePausedAndNeverRunsAheadOfTheOutput() async {
    let h = Harness()
    await h.run(.load(["long.flac"]))
    await h.run(.play)
    for _ in 0..<20 {
      await h.pass(0.37)
      let state = await h.timeline.settle(h.controller.refresh(), controller: h.controller).value
      #expect((state?.position.seconds ?? 0) <= h.output.currentPosition + 1e-9)
    }
    let paused = await h.run(.pause).value
    await h.pass(5)
    let later = await h.timeline.settle(h.controller.refresh(), controller: h.controller).value
    #expect(paused?.position.seconds == later?.position.seconds)
    #expect(later?.position.rate == 0)
    let positions = h.states.map(\.position.seconds)
    #expect(positions == positions.sorted(), "no backward step without a seek")
  }

  @Test func revisionsIncreaseByOneAndStatesStreamInOrder() async {
    let h = Harness()
    let stream = h.controller.states()
    await h.run(.load(["a.flac", "b.flac"]))
    await h.run(.play)
    await h.run(.volume(.absolute(30)))
    await h.run(.next)
    await h.run(.stop)
    let revisions = h.states.map(\.revision)
    #expect(revisions == Array(1...UInt64(revisions.count)))
    var streamed: [UInt64] = []
    for await state in stream {
      streamed.append(state.revision)
      if state.revision == revisions.last { break }
    }
    #expect(streamed == [0] + revisions)
  }
}
