import ControlProtocol
import Futures
import PlayerCore
import SplayConsole

/// Where `splay play` shows the confirmed state: a live terminal view or JSON lines.
protocol PlaybackView: Sendable {
  /// Takes over the terminal (or does nothing).
  func begin()
  /// Shows a newly published state. Called in publication order.
  func show(_ state: PlayerState)
  /// Gives the terminal back. Safe to call more than once.
  func end()
  /// Reports a file that could not be played (one line, without the `splay:` prefix).
  func report(_ message: String)
  /// Shows `message`, which is nobody's failure (a stream reconnecting): on the live view's notice line, else
  /// stderr; it is not listed again at the end.
  func notice(_ message: String)
}

/// One JSON object per published state on stdout, and before a state whose queue changed, the queue's paths as
/// one `{"queue": {...}}` line; nothing else there.
final class JSONLinesView: PlaybackView, Sendable {
  /// The queue revision printed last. Observers run one at a time, in order.
  private let printedQueue = Lock<UInt64?>(nil)

  func begin() {}

  /// The state; before it, when the queue changed, the queue's paths as one `{"queue": {...}}` line (states
  /// carry its length only, docs/protocol.md).
  func show(_ state: PlayerState) {
    let changed = printedQueue.withLock { printed in
      defer { printed = state.queueRevision }
      return printed != state.queueRevision && !state.queue.isEmpty
    }
    if changed {
      QueuePage.writeLine(of: state, to: Console.out(bytes:))
    }
    Console.out(state.jsonText)
  }
  func end() {}
  func report(_ message: String) { Console.error(message) }

  func notice(_ message: String) { Console.error(message) }
}
