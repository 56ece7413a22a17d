import PlayerCore

/// Which stream is the output's current one, and what the first `open` takes.
///
/// Confirmations and events carry the number of the stream they are about, so that the controller tells a
/// replaced stream's from the current one's; a gapless track change counts as a new stream too, since what is
/// confirmed after it is about the next track. Before the first `open`, a stream may be prepared for it
/// (``PulseOutput/prepare(_:playingWhen:)``); from that `open` on, the controller decides about streams.
struct StreamLineage {
  /// Before the first `open`: the stream being prepared for it, if any.
  private enum FirstOpen {
    case awaited(prepared: PreparedStream?)
    case came
  }

  /// The current stream's number (0 before the first).
  private(set) var current: UInt64 = 0
  private var firstOpen = FirstOpen.awaited(prepared: nil)

  /// Counts a new stream and returns its number.
  mutating func begin() -> UInt64 {
    current += 1
    return current
  }

  /// Whether the first `open` came: a stream's end is acted on only then (nobody would hear of it before).
  var firstOpenCame: Bool {
    if case .came = firstOpen { true } else { false }
  }

  /// Makes the stream prepared for the first `open`, of `decoder`, to play once cleared (`playing`) or to stay
  /// corked. Nil when that `open` came already or another stream is being prepared: only one is.
  mutating func prepare(_ decoder: any AudioDecoder, playing: Bool) -> PreparedStream? {
    guard case .awaited(prepared: .none) = firstOpen else { return nil }
    let entry = PreparedStream(decoder: decoder, playing: playing)
    firstOpen = .awaited(prepared: entry)
    return entry
  }

  /// Takes the first `open`, of `decoder` at `seconds` with `volume`: returns the prepared stream when it was
  /// made for exactly that (the same decoder, from the start, at the server's volume); otherwise marks it
  /// dropped and returns nil. Nil for every later `open`.
  mutating func takePrepared(for decoder: any AudioDecoder, at seconds: Double, volume: Int?) -> PreparedStream? {
    guard case .awaited(let prepared) = firstOpen else { return nil }
    firstOpen = .came
    guard let prepared else { return nil }
    if prepared.decoder === decoder, seconds == 0, volume == nil { return prepared }
    prepared.dropped = true
    return nil
  }
}
