import ArgumentParser
import ControlProtocol
import PlayerCore
import PlayerDecoding
import PlayerLibrary
import SplayConsole

/// `splay info FILE...`: what the decoder sees in each file, folders and playlists expanded as `play` does.
struct InfoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "info",
    abstract: "Show format, sample rate, channels, duration and tags of audio files.",
    discussion: """
      Folders and playlists name the files that 'splay play' would queue from them (folders recursively, in \
      natural order; '-' reads a playlist from standard input), so 'splay info ~/Music' lists a collection.

      Exits 3 when a file cannot be read or decoded, or an entry was left out (the other files are still shown).
      """)

  @Flag(name: .long, help: "One JSON object per file on stdout.")
  var json = false

  @Argument(
    help: ArgumentHelp(
      "Audio files (WAV, FLAC, Ogg, Opus, MP3, M4A, WMA…), folders, playlists (.m3u, .m3u8, .pls) or cue sheets.",
      valueName: "file"))
  var files: [String]

  func run() async throws {
    let tracks = try TrackArguments.expand(files)
    for entry in tracks.skipped { Console.error(entry.message) }
    var failed = !tracks.skipped.isEmpty
    let decoders = PlayerSession.fileDecoders()
    for path in tracks.paths {
      do {
        let info = try decoders.open(path).info
        Console.out(json ? info.jsonText : Self.describe(info, gains: ReplayGainTags.read(atPath: path)))
        // It plays, as far as its audio goes; the exit status still says that something is wrong with it.
        if let damage = info.damage {
          Console.error("\(path): \(damage)")
          failed = true
        }
      } catch {
        Console.error(error.message)
        failed = true
      }
    }
    if failed { throw CLIError(message: "some files could not be read", status: .fileError) }
  }

  static func describe(_ info: TrackInfo, gains: ReplayGainTags = ReplayGainTags()) -> String {
    var fields = [info.formatDescription, info.isLive ? "live stream" : clockTime(info.duration)]
    if let bitrate = info.bitrate { fields.append("\((bitrate + 500) / 1000) kb/s") }
    if let title = info.title { fields.append("title \"\(title)\"") }
    if let artist = info.artist { fields.append("artist \"\(artist)\"") }
    if let album = info.album { fields.append("album \"\(album)\"") }
    if let track = info.trackNumber { fields.append("track \(track)") }
    if let date = info.date { fields.append("date \(date)") }
    if let gain = describe(gains) { fields.append(gain) }
    return "\(info.path): " + DisplayWidth.sanitized(fields.joined(separator: ", "))
  }

  /// `replaygain track -6.20 dB (peak 0.988547), album -4.00 dB`: the tags as read; nil when there are none.
  static func describe(_ tags: ReplayGainTags) -> String? {
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

/// `m:ss.mmm` for durations and positions (`h:mm:ss.mmm` from an hour on); `millis: false` drops the
/// milliseconds.
func clockTime(_ seconds: Double, millis: Bool = true) -> String {
  let total = max(0, seconds.isFinite ? seconds : 0)
  // Whole seconds count down (a clock shows 0:01 once a second has played); milliseconds round, as the
  // decoder's messages do, so that `info` and a damage line name the same length.
  let ms = Int64(millis ? (total * 1000).rounded() : (total * 1000).rounded(.down))
  let (hours, inHour) = ms.quotientAndRemainder(dividingBy: 3_600_000)
  let (minutes, inMinute) = inHour.quotientAndRemainder(dividingBy: 60_000)
  let (secs, frac) = inMinute.quotientAndRemainder(dividingBy: 1000)
  func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
  let clock = hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
  guard millis else { return clock }
  let digits = String(frac)
  return clock + "." + String(repeating: "0", count: 3 - digits.count) + digits
}

/// Seconds with exactly three decimals (`12.345`), for messages.
func clockSeconds(_ seconds: Double) -> String {
  let millis = Int64((max(0, seconds.isFinite ? seconds : 0) * 1000).rounded())
  let fraction = String(millis % 1000)
  return "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
}
