import Dispatch
import Futures
import PlayerCore

/// Where the output's futures settle and its events go: off the mainloop thread, on the consumer's executor
/// once it gave one (``PulseOutput/deliver(on:)``), on a serial queue of its own until then. Thread-safe.
final class OutputDelivery: Sendable {
  private let queue: DispatchQueue
  private let executor = Lock<ExecutionContext?>(nil)
  private let handler = Lock<(@Sendable (OutputEvent) -> Void)?>(nil)

  /// A delivery whose own queue is labelled `label`.
  init(label: String) {
    queue = DispatchQueue(label: label)
  }

  /// Settles and reports on `executor` from now on.
  func deliver(on executor: ExecutionContext) {
    self.executor.withLock { $0 = executor }
  }

  /// Sets the receiver of events.
  func setEventHandler(_ handler: @escaping @Sendable (OutputEvent) -> Void) {
    self.handler.withLock { $0 = handler }
  }

  /// Runs `body` (settling futures, reporting events) on the delivery context.
  func handOff(_ body: @escaping @Sendable () -> Void) {
    (executor.withLock { $0 } ?? .queue(queue)).execute(body)
  }

  /// Hands `event` to the receiver, on the caller's thread (already off the mainloop thread).
  func report(_ event: OutputEvent) {
    let handler = handler.withLock { $0 }
    handler?(event)
  }

  /// Resolves a stream operation's future (on the delivery context); when its command has already stopped
  /// waiting (a missed deadline cancelled it), the server's confirmation is reported as an event instead, so
  /// that the published state does not miss a change the server made.
  func resolve(_ resolver: Future<OutputConfirmation, PlayerError>.Resolver, _ confirmation: OutputConfirmation) {
    if !resolver.resolve(confirmation) { report(.confirmedLate(confirmation)) }
  }

  /// Hands `event` to the receiver set now, on the delivery context (from the mainloop thread).
  func announce(_ event: OutputEvent) {
    let handler = handler.withLock { $0 }
    handOff { handler?(event) }
  }
}
