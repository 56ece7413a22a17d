// What the fuzz targets accept as "the same command" after a round trip (shared by the targets). Only
// PlayerCore's types here: the command-parser target compiles it beside them, the control-request target into
// the PlayerCore module it imports (see run-fuzzers).

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
}
