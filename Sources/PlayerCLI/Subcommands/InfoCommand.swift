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
      natural order; '-' reads a playlist from standard input), so 'splay info ~/Music' lists a collection. With a \
      library index ('splay library add'), 16 tracks or more are answered from it for the files unchanged since its \
      last scan (by size and time), the same lines sooner.

      Exits 3 when a file cannot be read or decoded, or an entry was left out (the other files are still shown).
      """)

  @Flag(name: .long, help: "One JSON object per file on stdout.")
  var json = false

  @Argument(
    help: ArgumentHelp(
      "Audio files (WAV, FLAC, Ogg, Opus, MP3, M4A, WMA…), folders, playlists (.m3u, .m3u8, .pls) or cue sheets.",
      valueName: "file"))
  var files: [String]

  /// From how many tracks on `info` asks the library index (when there is one) for the files it read unchanged:
  /// starting `splay-library` and SQLite costs about what opening a dozen files does.
  static let tracksWorthTheIndex = 16

  func run() async throws {
    let tracks = try TrackArguments.expand(files)
    for entry in tracks.skipped { Console.error(entry.message) }
    let incomplete = !tracks.skipped.isEmpty
    if tracks.paths.count >= Self.tracksWorthTheIndex, LibraryProgram.indexExists() {
      let flags =
        (json ? ["--json"] : []) + (incomplete ? ["--incomplete"] : [])
        + ["--stream-timeout", "\(OutputSettings.defaultDeadline)"]
      // Not there or not startable: the files answer, as without an index.
      _ = try? LibraryProgram.become(["info"] + flags, reading: tracks.paths, besideOnly: true)
    }
    let decoders = PlayerSession.fileDecoders()
    var report = TrackInfoReport(
      failed: incomplete, eachLine: Console.stdoutIsTerminal, out: Console.out(bytes:), error: Console.error)
    let failed = report.run(over: tracks.paths, json: json ? { $0.jsonText } : nil) { path throws(PlayerError) in
      (try decoders.open(path).info, nil)
    }
    if failed { throw CLIError(message: "some files could not be read", status: .fileError) }
  }
}
