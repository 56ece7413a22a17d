import PlayerCore
import Testing

@testable import PlayerPulse

/// What asking for the connection does, and what a failed context means, row by row (``ConnectionState``).
@Suite struct ConnectionStateTests {
  private final class Calls: @unchecked Sendable {
    var results: [Bool] = []
  }

  @Test func theFirstRequestConnectsTheNextWaitAndReadyRunsThemAll() {
    var connection = ConnectionState()
    let calls = Calls()
    let waiter: ConnectionState.Waiter = { calls.results.append((try? $0.get()) != nil) }
    #expect(connection.request(waiter, hasContext: false) == .connect)
    #expect(connection.request(waiter, hasContext: true) == .wait)
    #expect(connection.failure() == .connectFailed)
    for waiting in connection.becameReady() { waiting(.success(())) }
    #expect(calls.results == [true, true])
    #expect(connection.request(waiter, hasContext: true) == .runNow)
    #expect(connection.becameReady().isEmpty, "a waiter run now is not kept")
    #expect(connection.failure() == .lost)
  }

  /// Rows: whether the context is made, whether it became ready, and what a request does.
  @Test(arguments: [
    (false, false, ConnectionState.Request.connect), (true, false, .wait), (true, true, .runNow),
    (false, true, .connect),
  ])
  func aRequest(hasContext: Bool, ready: Bool, request: ConnectionState.Request) {
    var connection = ConnectionState()
    if ready { _ = connection.becameReady() }
    #expect(connection.request({ _ in }, hasContext: hasContext) == request)
  }

  @Test func aFailedAttemptFailsEveryWaiterOnceAndTheNextRequestConnectsAgain() {
    var connection = ConnectionState()
    _ = connection.request({ _ in }, hasContext: false)
    _ = connection.request({ _ in }, hasContext: true)
    #expect(connection.disconnected().count == 2)
    #expect(connection.disconnected().isEmpty)
    #expect(!connection.isReady)
    #expect(connection.request({ _ in }, hasContext: false) == .connect)
  }
}
