import CPulseAudio
import Futures
import PlayerCore

// Issuing libpulse operations, and settling their futures and reporting events off the mainloop thread.
extension PulseOutput {
  /// Runs `body` with the lock held and the open stream, for an operation named `name` that settles through
  /// the resolver; fails at once when no stream is ready.
  func withOpenStream<T: Sendable>(
    _ name: String, _ body: @escaping (OpaquePointer, Future<T, PlayerError>.Resolver) -> Void
  ) -> Future<T, PlayerError> {
    let (future, resolver) = Future<T, PlayerError>.pending()
    locked {
      guard let stream = session?.stream, pa_stream_get_state(stream) == PA_STREAM_READY else {
        return handOff { resolver.reject(Self.noStream(name)) }
      }
      body(stream, resolver)
    }
    return future
  }

  /// Issues `name` on the open stream and confirms once the server agreed: with what `then` returns (it runs
  /// first, lock held), or with the stream's current state.
  func confirmedStreamOperation(
    _ name: String, start: @escaping (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?,
    then: @escaping () -> OutputConfirmation? = { nil }
  ) -> Future<OutputConfirmation, PlayerError> {
    withOpenStream(name) { [self] stream, resolver in
      issueLocked(
        name, start: { ticket in start(stream, ticket) },
        completion: { [self] ok in
          guard ok else {
            let error = PlayerError.outputFailed(operation: name, detail: connection.lastError())
            return handOff { resolver.reject(error) }
          }
          let confirmation = then() ?? confirmationLocked()
          handOff { self.resolve(resolver, confirmation) }
        }, failure: { error in self.handOff { resolver.reject(error) } })
    }
  }

  /// Starts a libpulse operation whose callback is a ``PulseOperation`` trampoline (lock held); `failure` runs
  /// when libpulse refuses it, or when the stream or the connection goes before the server answers.
  @discardableResult
  func issueLocked(
    _ name: String, start: (UnsafeMutableRawPointer) -> OpaquePointer?,
    completion: @escaping (Bool) -> Void, failure: @escaping (PlayerError) -> Void,
    volumeRead: ((pa_volume_t) -> Void)? = nil
  ) -> PulseOperation? {
    assertLocked()
    return requests.issue(
      name, start: start, completion: completion, failure: failure, volumeRead: volumeRead,
      detail: connection.lastError)
  }

  /// The error of an operation that needs a stream when none is open.
  static func noStream(_ name: String) -> PlayerError {
    .outputFailed(operation: name, detail: "no stream is open")
  }

  /// Resolves a stream operation's future (off the mainloop thread); when its command has already stopped
  /// waiting (a missed deadline cancelled it), the server's confirmation is reported as an event instead, so
  /// that the published state does not miss a change the server made.
  func resolve(
    _ resolver: Future<OutputConfirmation, PlayerError>.Resolver, _ confirmation: OutputConfirmation
  ) {
    if !resolver.resolve(confirmation) { report(.confirmedLate(confirmation)) }
  }

  /// Hands an event to the controller (off the mainloop thread).
  func report(_ event: OutputEvent) {
    delivery.report(event)
  }

  /// Reports `event` from the mainloop thread or with the lock held: handed off, to the receiver set now.
  func announceLocked(_ event: OutputEvent) {
    delivery.announce(event)
  }

  /// Hands `body` (settling futures, reporting events) to the delivery context, off the mainloop thread.
  func handOff(_ body: @escaping @Sendable () -> Void) {
    delivery.handOff(body)
  }
}
