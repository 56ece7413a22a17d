import PlayerCore
import Testing

@testable import PlayerPulse

/// What asking for the connection does, and what a failed context means, row by row (``ConnectionState``).
@Suite struct ConnectionStateTests {
  private final class Calls: @unchecked Sendable {
    var results: [Bool] = []
  }

  /// Stands for a context: the state only holds it, never calls libpulse with it.
  private static var context: OpaquePointer { OpaquePointer(bitPattern: 0x1000)! }

  @Test func theFirstRequestConnectsTheNextWaitAndReadyRunsThemAll() {
    var connection = ConnectionState()
    let calls = Calls()
    let waiter: ConnectionState.Waiter = { calls.results.append((try? $0.get()) != nil) }
    #expect(connection.request(waiter) == .connect)
    connection.made(Self.context)
    #expect(connection.request(waiter) == .wait)
    #expect(connection.failure() == .connectFailed)
    for waiting in connection.becameReady() { waiting(.success(())) }
    #expect(calls.results == [true, true])
    #expect(connection.request(waiter) == .runNow)
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
    if hasContext { connection.made(Self.context) }
    if ready { _ = connection.becameReady() }
    #expect(connection.request({ _ in }) == request)
  }

  @Test func aFailedAttemptFailsEveryWaiterOnceAndTheNextRequestConnectsAgain() {
    var connection = ConnectionState()
    _ = connection.request({ _ in })
    connection.made(Self.context)
    _ = connection.request({ _ in })
    #expect(connection.disconnected().count == 2)
    #expect(connection.disconnected().isEmpty)
    #expect(!connection.isReady && connection.context == nil, "the context is let go with the waiters")
    #expect(connection.request({ _ in }) == .connect)
  }
}
