import PlayerCore

/// The lines of the live view for one frame, each cut to the terminal's width in display columns (wide
/// characters take two), so that no line ever wraps.
struct ScreenLayout {
  var state: PlayerState
  /// The command in flight ("pausing…"), shown beside the confirmed status.
  var pending: String?
  /// The last command's failure or a note about it.
  var notice: String?
  /// Where the clock stands: the confirmed position estimated now, or held while a command is in flight.
  var position: Double
  /// Files that could not be played, or only in part (damaged), in the order they were reported.
  var skipped: [String]
  var width: Int

  /// The most used first: a narrow terminal cuts the line from its end.
  static let keys =
    "space pause  q quit  ←/→ ±5 s  ↓/↑ ±60 s  +/- volume  m mute  n/p next/prev  r repeat  s shuffle  / find"

  /// Every line of the view, top to bottom, none wider than `width` columns.
  var lines: [String] {
    var lines: [String] = []
    lines.append("splay — " + state.status.name + (pending.map { "  (\($0))" } ?? ""))
    if let track = state.track {
      lines.append(track.displayTitle + (track.artist.map { " — \($0)" } ?? ""))
      var about: [String] = []
      if let album = track.album { about.append(album) }
      if let number = track.trackNumber { about.append("track \(number)") }
      if let date = track.date { about.append(date) }
      about.append(track.formatDescription)
      if let gain = track.gainDescription { about.append("ReplayGain " + gain) }
      lines.append(about.joined(separator: " · "))
      lines.append(track.path)
      lines.append(progressBar(position: position, duration: track.duration))
    } else {
      lines += ["(nothing loaded)", "", "", ""]
    }
    let queue = state.index.map { "track \($0 + 1)/\(state.queueLength)" } ?? "queue empty"
    var modes = ""
    if state.repeatMode != .off { modes += "   repeat \(state.repeatMode.rawValue)" }
    if state.shuffle { modes += "   shuffle" }
    lines.append("volume \(state.volume)%" + (state.muted ? " (muted)" : "") + "   " + queue + modes)
    lines.append(notice ?? "")
    lines.append(skipped.last.map { problemLine($0, count: skipped.count) } ?? "")
    lines.append(Self.keys)
    return lines.map { DisplayWidth.fitted($0, to: width) }
  }

  /// `problem: PATH: reason`, or `3 problems; last: …` (a damaged file played in part: not "skipped"). A narrow
  /// terminal shortens the path from its start, so that the file's name and the reason stay.
  func problemLine(_ message: String, count: Int) -> String {
    let label = count == 1 ? "problem: " : "\(count) problems; last: "
    let line = label + message
    let parts = message.split(separator: ": ", maxSplits: 1)
    guard DisplayWidth.columns(of: line) > width, parts.count == 2 else { return line }
    let reason = ": " + parts[1]
    let room = width - DisplayWidth.columns(of: label) - DisplayWidth.columns(of: reason)
    guard room >= 8 else { return line }
    return label + DisplayWidth.fittedFromTheStart(String(parts[0]), to: room) + reason
  }

  /// `[=====-----] 1:02 / 3:45` across the whole width.
  func progressBar(position: Double, duration: Double) -> String {
    // A live stream has no end to measure against: its time since it started, no bar.
    guard duration.isFinite else { return "live " + clockTime(position, millis: false) }
    let times = Self.times(position: position, duration: duration)
    let barWidth = barWidth(position: position, duration: duration)
    let filled = duration > 0 ? min(barWidth, Int((position / duration * Double(barWidth)).rounded(.down))) : 0
    return "[" + String(repeating: "=", count: filled) + String(repeating: "-", count: barWidth - filled) + "]" + times
  }

  private static func times(position: Double, duration: Double) -> String {
    " \(clockTime(position, millis: false)) / \(clockTime(duration, millis: false))"
  }

  /// The cells of the progress bar: the width left beside the brackets and the times.
  private func barWidth(position: Double, duration: Double) -> Int {
    max(4, width - Self.times(position: position, duration: duration).count - 2)
  }

  /// Seconds of playback from ``position`` until the frame changes by itself: the clock's next second or the
  /// bar's next cell, whichever comes first. Nil when nothing moves on its own (no track, or at its end): the
  /// view then draws only when a state or a key changes something, so a paused player's view never wakes.
  var secondsUntilTheClockMoves: Double? {
    guard let duration = state.track?.duration, duration > 0, position < duration else { return nil }
    let second = position.rounded(.down) + 1 - position
    let cell = duration / Double(barWidth(position: position, duration: duration))
    let nextCell = ((position / cell).rounded(.down) + 1) * cell - position
    return min(second, nextCell, duration - position)
  }
}
