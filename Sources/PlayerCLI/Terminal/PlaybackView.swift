import ControlProtocol
import PlayerCore

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
}

/// One JSON object per published state on stdout, and nothing else there.
struct JSONLinesView: PlaybackView {
  func begin() {}
  func show(_ state: PlayerState) { Console.out(state.jsonText) }
  func end() {}
  func report(_ message: String) { Console.error(message) }
}
