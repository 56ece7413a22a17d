import ArgumentParser
import PlayerCore

/// `splay info FILE...`: what the decoder sees in each file.
struct InfoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "info",
    abstract: "Show format, sample rate, channels, duration and tags of audio files.",
    discussion: "Exits 3 when a file cannot be read or decoded (the other files are still shown).")

  @Flag(name: .long, help: "One JSON object per file on stdout.")
  var json = false

  @Argument(help: ArgumentHelp("Audio files (WAV, FLAC, Ogg Vorbis, Opus, MP3).", valueName: "file"))
  var files: [String]

  func run() async throws {
    var failed = false
    for path in files {
      do {
        let info = try SndfileDecoder(path: path).info
        Console.out(json ? info.jsonText : Self.describe(info))
      } catch {
        Console.error(error.message)
        failed = true
      }
    }
    if failed { throw CLIError(message: "some files could not be read", status: .fileError) }
  }

  static func describe(_ info: TrackInfo) -> String {
    var fields = [
      info.format, "\(info.sampleRate) Hz", info.channels == 1 ? "mono" : "\(info.channels) channels",
      clockTime(info.duration),
    ]
    if let title = info.title { fields.append("title \"\(title)\"") }
    if let artist = info.artist { fields.append("artist \"\(artist)\"") }
    if let album = info.album { fields.append("album \"\(album)\"") }
    return "\(info.path): " + fields.joined(separator: ", ")
  }
}

/// `m:ss.mmm` for durations and positions.
func clockTime(_ seconds: Double, millis: Bool = true) -> String {
  let total = max(0, seconds.isFinite ? seconds : 0)
  let minutes = Int(total / 60)
  let rest = total - Double(minutes * 60)
  if millis {
    let ms = Int((rest * 1000).rounded(.down))
    let s = ms / 1000
    let frac = ms % 1000
    return "\(minutes):\(s < 10 ? "0" : "")\(s).\(String(repeating: "0", count: 3 - String(frac).count))\(frac)"
  }
  let s = Int(rest)
  return "\(minutes):\(s < 10 ? "0" : "")\(s)"
}

/// Seconds with exactly three decimals (`12.345`), for messages.
func clockSeconds(_ seconds: Double) -> String {
  let millis = Int64((max(0, seconds.isFinite ? seconds : 0) * 1000).rounded())
  let fraction = String(millis % 1000)
  return "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
}
