import PlayerCore

/// The player's state for a person, as `mpc status` prints it.
enum StatusText {
  /// Three lines: the track, `[playing] #2/12  1:02/3:45 (27%)`, and volume, modes and queue.
  ///
  /// ```
  /// Title — Artist
  /// [playing] #2/12   1:02/3:45 (27%)
  /// volume: 40%   repeat: off   shuffle: off
  /// ```
  ///
  /// With ReplayGain on, the volume line ends with the gain: `replaygain: album -6.20 dB`.
  static func summary(_ state: PlayerState) -> String {
    var lines: [String] = []
    if let track = state.track {
      lines.append(DisplayWidth.sanitized(track.displayTitle + (track.artist.map { " — \($0)" } ?? "")))
    }
    lines.append(progress(state))
    let modes = "   repeat: \(state.repeatMode.rawValue)   shuffle: \(state.shuffle ? "on" : "off")"
    lines.append(
      "volume: \(state.volume)%" + (state.muted ? " (muted)" : "") + modes
        + (state.queueLength == 0 ? "   queue empty" : "")
        + (state.track?.gainDescription.map { "   replaygain: \($0)" } ?? ""))
    return lines.joined(separator: "\n")
  }

  /// One line per state, for `follow`: `[paused] #1/3  0:12/3:00 (6%)  Title — Artist`.
  static func line(_ state: PlayerState) -> String {
    var text = progress(state)
    if let track = state.track {
      text += "  " + DisplayWidth.sanitized(track.displayTitle + (track.artist.map { " — \($0)" } ?? ""))
    }
    return text
  }

  private static func progress(_ state: PlayerState) -> String {
    var text = "[\(state.status.name)]"
    if let index = state.index { text += " #\(index + 1)/\(state.queueLength)" }
    if let track = state.track {
      let position = state.position.seconds
      if track.isLive { return text + "   \(clockTime(position, millis: false)) (live)" }
      let percent = track.duration > 0 ? Int((position / track.duration * 100).rounded(.down)) : 0
      text += "   \(clockTime(position, millis: false))/\(clockTime(track.duration, millis: false)) (\(percent)%)"
    }
    return text
  }
}
