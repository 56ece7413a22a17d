import Futures
import PlayerCore
import PlayerTestSupport
import Testing

/// After ``PlayerController/shutdown()`` nothing reaches the output again: not the job in flight, not a
/// reconnection, not a status request.
@Suite struct ControllerShutdownTests {
  /// Whether the simulated output has a stream open (its status answers only then).
  private func hasStream(_ output: SimulatedOutput) -> Bool {
    output.status().outcome?.succeeded ?? false
  }

  @Test func aReconnectionInFlightDoesNotReopenTheStreamAfterShutdown() async {
    let h = Harness()
    await h.run(.load(["a.flac"]))
    await h.run(.play)
    h.output.loseConnection()
    await h.idle()
    h.output.restore()
    // The reconnection's open waits for the server when the shutdown comes.
    h.output.setAcknowledgement(.hold, for: .open)
    let recovery = h.controller.recover()
    await h.idle()
    #expect(h.output.heldCount == 1)
    let closed = h.controller.shutdown()
    // The server answers the open after all: before the fix the stream was opened after the close.
    h.output.releaseHeld()
    #expect(await h.timeline.settle(closed, controller: h.controller).succeeded)
    let recovered = await h.timeline.settle(recovery, controller: h.controller)
    #expect(!recovered.succeeded, "the reconnection did not complete")
    #expect(!hasStream(h.output), "no stream is open after shutdown")
  }

  @Test func statusAndReconnectAfterShutdownAreRefused() async {
    let h = Harness()
    await h.run(.load(["a.flac"]))
    _ = await h.timeline.settle(h.controller.shutdown(), controller: h.controller)
    #expect(!hasStream(h.output))
    let refresh = await h.timeline.settle(h.controller.refresh(), controller: h.controller)
    #expect(refresh.failureCode == "invalid-state")
    let recover = await h.timeline.settle(h.controller.recover(), controller: h.controller)
    #expect(recover.failureCode == "invalid-state")
    #expect(await h.run(.play).failureCode == "invalid-state")
    #expect(!hasStream(h.output))
  }
}
