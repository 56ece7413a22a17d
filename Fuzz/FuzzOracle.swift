// What the fuzz targets accept as "the same command" after a round trip (shared by the targets).

enum FuzzOracle {
  /// Equal, except that seconds are compared to a nanosecond: the printed form rounds below that.
  static func sameCommand(_ a: PlayerCommand, _ b: PlayerCommand) -> Bool {
    switch (a, b) {
    case (.seek(.absolute(let x)), .seek(.absolute(let y))), (.seek(.relative(let x)), .seek(.relative(let y))),
      (.seek(.percent(let x)), .seek(.percent(let y))):
      return abs(x - y) <= 1e-9 * max(1, abs(x))
    default:
      return a == b
    }
  }

  /// The same id and the same request (commands compared as ``sameCommand(_:_:)`` does).
  static func sameRequest(_ a: ControlRequest, _ b: ControlRequest) -> Bool {
    guard a.id == b.id else { return false }
    if case .player(let x) = a.kind, case .player(let y) = b.kind { return sameCommand(x, y) }
    return a.kind == b.kind
  }
}
