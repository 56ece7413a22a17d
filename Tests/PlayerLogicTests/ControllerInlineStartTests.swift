import Dispatch
import Futures
import PlayerCore
import PlayerTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A command that finds the controller idle is started on the caller's thread (one thread hand-over less per
/// command), while its answer, the callbacks of its future and the observers still run on the controller's
/// side.
@Suite struct ControllerInlineStartTests {
  @Test func aCommandThatFindsTheControllerIdleReachesTheOutputBeforeSendReturns() async {
    let h = Harness()
    await h.run(.load(["a.flac"]))
    await h.run(.play)
    h.output.setAcknowledgement(.hold, for: .pause)
    h.output.setAcknowledgement(.hold, for: .start)
    for round in 0..<20 {
      await waitUntilIdle(h.controller)
      let pause = h.controller.pause()
      #expect(h.output.heldCount == 1, "round \(round): the cork must be asked for before `send` returns")
      #expect(pause.outcome == nil, "nothing is settled on the caller's thread")
      h.output.releaseHeld()
      #expect(await h.timeline.settle(pause, controller: h.controller).value?.status == .paused)
      await waitUntilIdle(h.controller)
      let play = h.controller.play()
      #expect(h.output.heldCount == 1, "round \(round): the uncork must be asked for before `send` returns")
      h.output.releaseHeld()
      #expect(await h.timeline.settle(play, controller: h.controller).value?.status == .playing)
    }
  }

  @Test func callbacksAndObserversDoNotRunOnTheCallersThread() async {
    let h = Harness()
    await h.run(.load(["a.flac"]))
    await waitUntilIdle(h.controller)
    let threads = Locked<[String: pthread_t]>([:])
    let observation = h.controller.observe { _ in threads.withLock { $0["observer"] = pthread_self() } }
    defer { observation.cancel() }
    // The acknowledgement is held until the callback is registered, then given on the caller's thread: a
    // controller that went on where the answer came from would settle the future right there.
    h.output.setAcknowledgement(.hold, for: .start)
    let caller = DispatchQueue(label: "caller")
    let play = caller.sync { () -> Future<PlayerState, PlayerError> in
      threads.withLock { $0["caller"] = pthread_self() }
      let play = h.controller.play()
      play.whenComplete { _ in threads.withLock { $0["callback"] = pthread_self() } }
      h.output.releaseHeld()
      return play
    }
    #expect(await h.timeline.settle(play, controller: h.controller).value?.status == .playing)
    await waitUntilIdle(h.controller)
    let seen = threads.withLock { $0 }
    guard let callerThread = seen["caller"], let callbackThread = seen["callback"],
      let observerThread = seen["observer"]
    else {
      Issue.record("a thread was not recorded: \(seen.keys.sorted())")
      return
    }
    #expect(pthread_equal(callerThread, callbackThread) == 0, "the future settled on the caller's thread")
    #expect(pthread_equal(callerThread, observerThread) == 0, "an observer ran on the caller's thread")
  }

  private func waitUntilIdle(_ controller: PlayerController) async {
    while !controller.isIdle { await Task.yield() }
  }
}
