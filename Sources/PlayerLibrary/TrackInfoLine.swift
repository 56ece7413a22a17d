import PlayerCore

/// The line `splay info` prints for a track.
public enum TrackInfoLine {
  /// `PATH: FLAC, 16-bit, 44.1 kHz, stereo, 0:02.000, 272 kb/s, title "…", replaygain track -6.20 dB`: the
  /// format, length, bitrate, tags and ReplayGain tags, made safe for a terminal.
  public static func text(_ info: TrackInfo, gains: ReplayGainTags = ReplayGainTags()) -> String {
    var fields = [info.formatDescription, info.isLive ? "live stream" : clockTime(info.duration)]
    if let bitrate = info.bitrate { fields.append("\((bitrate + 500) / 1000) kb/s") }
    if let title = info.title { fields.append("title \"\(title)\"") }
    if let artist = info.artist { fields.append("artist \"\(artist)\"") }
    if let album = info.album { fields.append("album \"\(album)\"") }
    if let track = info.trackNumber { fields.append("track \(track)") }
    if let date = info.date { fields.append("date \(date)") }
    if let gain = text(gains) { fields.append(gain) }
    return "\(info.path): " + DisplayWidth.sanitized(fields.joined(separator: ", "))
  }

  /// `replaygain track -6.20 dB (peak 0.988547), album -4.00 dB`: the tags as read; nil when there are none.
  public static func text(_ tags: ReplayGainTags) -> String? {
    func one(_ name: String, _ gain: Double?, _ peak: Double?) -> String? {
      guard let gain else { return nil }
      let text = "\(name) " + TrackInfo.decibelsText(gain)
      return text + (peak.map { " (peak \($0))" } ?? "")
    }
    let parts = [one("track", tags.trackGain, tags.trackPeak), one("album", tags.albumGain, tags.albumPeak)]
      .compactMap { $0 }
    return parts.isEmpty ? nil : "replaygain " + parts.joined(separator: ", ")
  }
}
