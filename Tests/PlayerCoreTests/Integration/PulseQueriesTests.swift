import AudioTestSupport
import PlayerTestSupport
import Testing

@testable import PlayerCore
@testable import PlayerPulse

/// The server queries of the probe and the output: a query the connection does not outlive is answered with
/// nothing, and lets go of what its answer holds (libpulse cancels it and never calls its callback).
@Suite(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseQueriesTests {
  private final class Held: Sendable {}

  /// A mainloop and a connection on it, once connected. Callers hold the sink alone (``ExclusiveSink``): a fault
  /// test stops the server for seconds, which ends a query in flight.
  private func connected() async throws -> (ThreadedMainloop, PulseConnection) {
    let loop = ThreadedMainloop()
    let connection = PulseConnection(loop: loop, server: PulseEnvironment.server, timeout: 2)
    let result = await withCheckedContinuation { continuation in
      loop.locked { connection.whenConnected { continuation.resume(returning: $0) } }
    }
    try result.get()
    return (loop, connection)
  }

  @Test func aQueryWhoseConnectionWentIsAnsweredWithNothingAndLetGo() async throws {
    try await ExclusiveSink.run { try await cutOffQuery() }
  }

  @Test func aQueryTheConnectionOutlivesIsAnsweredOnce() async throws {
    try await ExclusiveSink.run { try await answeredQuery() }
  }

  /// The answer closes the connection (a probe let go with its last answer does): libpulse then ends the very
  /// operation being answered once more, as cancelled, from inside its answer.
  @Test func aQueryWhoseAnswerClosesTheConnectionIsAnsweredOnce() async throws {
    try await ExclusiveSink.run {
      let (loop, connection) = try await connected()
      let answers = Locked<[String?]>([])
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        loop.locked {
          ServerInfoQuery.run(connection.context!) { server in
            answers.withLock { $0.append(server.name) }
            _ = connection.disconnect(error: .cancelled)
            continuation.resume()
          }
        }
      }
      #expect(answers.withLock { $0.count == 1 && $0[0] != nil }, "answered once, by the server")
    }
  }

  private func cutOffQuery() async throws {
    let (loop, connection) = try await connected()
    let answers = Locked<[String?]>([])
    var held: Held? = Held()
    weak let watched = held
    loop.locked {
      let context = connection.context!
      ServerInfoQuery.run(context) { [held] server in
        withExtendedLifetime(held) { answers.withLock { $0.append(server.name) } }
      }
      held = nil
      // Before the server could answer: libpulse cancels the query.
      _ = connection.disconnect(error: .cancelled)
    }
    #expect(answers.withLock { $0 } == [nil], "answered once, with nothing")
    #expect(watched == nil, "the answer handler was let go")
  }

  private func answeredQuery() async throws {
    let (loop, connection) = try await connected()
    let name = await withCheckedContinuation { continuation in
      loop.locked { ServerInfoQuery.run(connection.context!) { continuation.resume(returning: $0.name) } }
    }
    #expect(name != nil, "the server says its name")
    loop.locked { _ = connection.disconnect(error: .cancelled) }
  }
}
