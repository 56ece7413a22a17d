import PlayerCore

/// How a confirmed state differs from one recorded by an earlier run of the same script (`--expect-log`):
/// what a player shows (status, track and its file's name, queue length, volume, mute, modes) must be equal,
/// the position within a tolerance; revisions, timestamps, folders and the sink's name are not compared
/// (another server, another run, another working folder).
public enum StateDifference {
  /// What differs between `state` and `recorded`, one `name VALUE, recorded VALUE` each; empty when they agree.
  public static func between(_ state: PlayerState, recorded: PlayerState, tolerance: Double) -> [String] {
    var differences: [String] = []
    func compare<T: Equatable>(_ name: String, _ value: T, _ old: T, _ text: (T) -> String) {
      if value != old { differences.append("\(name) \(text(value)), recorded \(text(old))") }
    }
    compare("status", describe(state.status), describe(recorded.status)) { $0 }
    compare("track", state.index.map { $0 + 1 }, recorded.index.map { $0 + 1 }) { $0.map(String.init) ?? "none" }
    compare("queue length", state.queueLength, recorded.queueLength) { String($0) }
    // The file's name: the path depends on the folder the script was run from.
    compare("file", state.track.map { fileName($0.path) }, recorded.track.map { fileName($0.path) }) {
      $0.map { "\"\($0)\"" } ?? "none"
    }
    compare("volume", state.volume, recorded.volume) { String($0) }
    compare("muted", state.muted, recorded.muted) { String($0) }
    compare("repeat", state.repeatMode, recorded.repeatMode) { $0.rawValue }
    compare("shuffle", state.shuffle, recorded.shuffle) { String($0) }
    let position = state.position.seconds
    let old = recorded.position.seconds
    if abs(position - old) > tolerance + 1e-9 {
      differences.append(
        "position \(formatSeconds(position)) s, recorded \(formatSeconds(old)) s (± \(formatSeconds(tolerance)))")
    }
    return differences
  }

  private static func fileName(_ path: String) -> Substring {
    path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
  }

  /// A status with its error code when it failed.
  private static func describe(_ status: PlaybackStatus) -> String {
    if case .failed(let error) = status { return "failed (\(error.code))" }
    return status.name
  }
}
