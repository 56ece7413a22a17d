import ArgumentParser
import FoundationEssentials
import Futures
import PlayerCore
import PlayerDecoding
import SplayConsole

/// `splay play FILE...`: plays files in order, with a live view on a terminal or JSON lines otherwise.
struct PlayCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play",
    abstract: "Play audio files, folders and playlists in order, then exit.",
    discussion: """
      On a terminal, a live view shows the confirmed state; keys: space pause/resume, ←/→ seek −5/+5 s, \
      ↓/↑ −60/+60 s, +/- volume, m mute, n/p next/previous, r repeat, s shuffle, / find in the queue (Enter \
      plays the match, Tab the next one), q quit.
      Otherwise (or with --json), every published state is printed as one JSON object per line.
      A folder plays the audio files under it in natural order (2 before 10); an .m3u, .m3u8 or .pls playlist \
      plays its entries; a .cue sheet plays its tracks (ALBUM.cue/track03 names one), and a folder holding one \
      plays its tracks in place of the whole file; '-' reads a list of paths (or an M3U playlist) from standard input, and the view then \
      reads keys from the terminal.
      With a D-Bus session bus, media keys, playerctl and desktop widgets control it over MPRIS (see \
      docs/mpris.md); --no-mpris (or mpris = false in config.toml) turns that off.
      A file that cannot be read is reported on stderr and skipped; the exit status is then 3.
      """)

  @OptionGroup var outputOptions: OutputOptions

  @OptionGroup var replayGainOptions: ReplayGainOptions

  @OptionGroup var mprisOptions: MPRISOptions

  @OptionGroup var hookOptions: HookOptions

  @Flag(name: .long, help: "Print each confirmed state as a JSON line instead of the live view.")
  var json = false

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Start the first track here: seconds (90), a time (1:30) or a percentage (50%).", valueName: "time"),
    transform: PlayCommand.startPosition)
  var start: SeekTarget?

  @Option(
    name: .long, parsing: .unconditional,
    help: ArgumentHelp(
      "Initial volume: 0-100, optionally with % (40%); default: the config's, else the server's.",
      valueName: "percent"),
    transform: PlayCommand.initialVolume)
  var volume: Int?

  @Flag(name: .long, help: "Start again from the first track after the last one ends (repeat all; r cycles it).")
  var loop = false

  @Flag(name: .long, help: "Play the files in a random order (s toggles it).")
  var shuffle = false

  @Flag(
    name: .long,
    help: """
      Continue the last 'splay play' session where it stopped: its queue, track and position, volume, repeat \
      and shuffle (kept in $XDG_STATE_HOME/splay/play.json unless the config's 'resume' is false).
      """)
  var resume = false

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Also play the library's tracks that QUERY finds, after any files ('splay search' shows them).",
      valueName: "query"))
  var search: String?

  @Argument(
    help: ArgumentHelp(
      "Audio files (WAV, FLAC, Ogg Vorbis, Opus, MP3, M4A…), folders, playlists, or '-' for a list on standard input.",
      valueName: "file"))
  var files: [String] = []

  func validate() throws {
    if resume, !files.isEmpty || search != nil {
      throw ValidationError("--resume continues the last session: give it no files or --search")
    }
    if !resume, files.isEmpty, search == nil {
      throw ValidationError("give the files, folders or playlists to play (or --resume)")
    }
  }

  /// `--start` takes what `seek` takes in scripts and on the socket, except a step: there is nothing to step from.
  static func startPosition(_ text: String) throws -> SeekTarget {
    let expected = "expected a position (90, 12.5, 1:30, 50%)"
    guard let target = try? CommandParser.seekTarget(text) else {
      throw ValidationError("\(expected), found '\(text.prefix(40))'")
    }
    if case .relative = target { throw ValidationError("\(expected), not a step") }
    return target
  }

  /// `--volume` takes what `volume` takes, except a step.
  static func initialVolume(_ text: String) throws -> Int {
    let expected = "expected a level 0-100 (40, 40%)"
    guard let change = try? CommandParser.volumeChange(text) else {
      throw ValidationError("\(expected), found '\(text.prefix(40))'")
    }
    guard case .absolute(let level) = change else { throw ValidationError("\(expected), not a step") }
    return level
  }

  func run() async throws {
    let reports = SkipReports()
    // What began before the parse (connecting, the first file's stream) is taken over when it is what the
    // options ask for; otherwise the output is made first, so that connecting overlaps with probing the files.
    let config = try ConfigFile.load()
    let settings = outputOptions.settings(with: config)
    let early = EarlyStart.take(matching: settings.pulseConfiguration)
    // The early decoders give a stream the default deadline: another (the config's) needs decoders of its own.
    let earlyDecoders = settings.deadline == OutputSettings.defaultDeadline ? early?.decoders : nil
    let decoders =
      earlyDecoders ?? ProbedDecoderFactory(opener: PlayerSession.fileDecoders(streamTimeout: settings.deadline))
    let session = PlayerSession(
      settings, decoders: decoders, replayGain: replayGainOptions.policy(with: config), pulse: early?.output,
      onSkipped: { error in reports.report(error.message) }, onNotice: { reports.notice($0) })
    let keeping = config.resume?.value ?? true
    let sessionFile = keeping ? SessionFile(name: "play.json", environment: ProcessInfo.processInfo.environment) : nil
    if resume, sessionFile == nil {
      let reason =
        keeping ? "no home for the saved session" : "resuming is off (config.toml:\(config.resume?.line ?? 0))"
      throw CLIError(message: "--resume: \(reason)", status: .usage)
    }
    let playable = resume ? [] : try playableTracks(decoders: decoders, reports: reports)

    let controller = session.controller
    let (finished, finish) = Future<PlayerState, Never>.pending()
    // When a command fails and `play` ends early, nobody waits for the end any more: settle it on the way out
    // rather than leave it to the unresolved-future diagnostic.
    defer { finish.settle(with: .cancelled) }
    let interactive = !json && Console.stdoutIsTerminal && session.simulated == nil
    if !interactive { SignalExit.install() }
    let view: any PlaybackView =
      interactive ? TerminalView(controller: controller, onQuit: { finish.resolve(controller.state) }) : JSONLinesView()
    let damaged = Lock<Set<String>>([])
    let observation = controller.observe { state in
      view.show(state)
      // A damaged file plays as far as its audio goes: said once, when it starts.
      if let track = state.track, let damage = track.damage, damaged.withLock({ $0.insert(track.path).inserted }) {
        reports.report("\(track.path): \(damage)")
      }
      switch state.status {
      case .ended, .failed: finish.resolve(state)
      default: break
      }
    }
    defer { observation.cancel() }
    // Said in the view, not counted as a file that could not be played: a hook does not change the exit status.
    let hooks = hookOptions.start(following: controller, config: config) { view.report($0) }
    view.begin()
    defer { view.end() }
    reports.attach(view, replaying: interactive)

    // Sent together: the controller runs them in order, each once the one before was confirmed, and the first
    // sound does not wait for this task to wake up between them. The first failure is the one reported.
    // Shuffle before the load: a shuffled queue starts at a random track and keeps its order, so that `s` turns
    // the shuffle off and plays on in the order given.
    var steps: [Future<PlayerState, PlayerError>] = []
    if resume, let sessionFile {
      // Brought back paused where the last session stopped; what is given on the command line then applies.
      // Said, not counted: a file of the session that is gone does not make this run's exit status 3.
      let restored = await SessionRestorer.restore(from: sessionFile, into: controller) { view.report($0) }
      if let failure = restored.failure {
        throw CLIError(message: "--resume: \(failure.message)", status: Self.status(for: failure))
      }
      guard restored.restored else {
        throw CLIError(message: "--resume: no 'splay play' session to continue in \(sessionFile.path)", status: .failed)
      }
      if shuffle { steps.append(controller.send(.shuffle(true))) }
    } else {
      if shuffle { steps.append(controller.send(.shuffle(true))) }
      steps.append(controller.load(playable))
    }
    if let volume = volume ?? (resume ? nil : config.volume?.value) { steps.append(controller.setVolume(volume)) }
    if loop { steps.append(controller.send(.repeatMode(.all))) }
    if let start, start != .absolute(0), start != .percent(0) { steps.append(controller.send(.seek(start))) }
    steps.append(controller.play())
    for future in steps { try await step(future, session) }
    // A new session replaces the last one (`restored`: written on the way out even with no change).
    let saver = sessionFile.map { file in
      SessionSaver(file: file, baseline: controller.state, restored: true) { reports.report($0) }
    }
    saver?.start(following: controller)
    // Ended by a signal or Ctrl-C, play keeps the last confirmed state it has (no time to ask the server).
    if let saver { SignalExit.lastWords { saver.finish(with: controller.state) } }
    // Once playing: connecting to the bus must not compete with the first sound for the CPU.
    let mpris = mprisOptions.start(for: session, config: config) { finish.resolve(controller.state) }

    if session.simulated != nil {
      // Virtual time: run the clock until the queue ends (a year of virtual time is the bound).
      _ = await session.timeline.wait(
        until: { _ in finished.outcome != nil }, timeout: 86_400 * 365, controller: controller)
    }
    let last = await finished.settled
    if let saver {
      // Where the audio really is as it stops: the position fresh from the server, not the last anchor.
      _ = await session.timeline.settle(controller.refresh(), controller: controller)
      saver.finish(with: controller.state)
    }
    _ = await session.timeline.settle(controller.shutdown(), controller: controller)
    await hooks.finish(within: 2)
    await mpris?.stopWithin()
    if case .success(let state) = last, case .failed(let error) = state.status {
      throw CLIError(message: error.message, status: .outputError)
    }
    if reports.any { throw CLIError(message: "some files could not be played", status: .fileError) }
  }

  /// The tracks the operands name, expanded; those named on the command line are checked now, so that a typo is
  /// reported before anything plays, and the first track is opened now in any case (its decoder is kept for the
  /// controller). Files from folders and playlists are reported when their turn comes: opening ten thousand first
  /// would delay the first sound by seconds.
  private func playableTracks(decoders: ProbedDecoderFactory, reports: SkipReports) throws -> [String] {
    var tracks = try TrackArguments.expand(files)
    // The index holds tracks (files and cue tracks), each queued as it is. With files named too, a search that
    // finds nothing is reported (exit 3 at the end) and the files play.
    if let search {
      do {
        tracks.paths += try LibraryProgram.paths(matching: search)
      } catch let error as CLIError where !files.isEmpty {
        reports.report(error.message)
      }
    }
    tracks.summaries.forEach(Console.error)
    for entry in tracks.skipped { reports.report(entry.message) }
    let named = Set(files)
    var unplayable: Set<Int> = []
    var found = false
    for (index, path) in tracks.paths.enumerated() where !found || named.contains(path) {
      do {
        try decoders.check(path)
        found = true
      } catch {
        reports.report(error.message)
        unplayable.insert(index)
      }
    }
    // Usually none is left out: then the list is queued as it is, not copied (200,000 paths are megabytes).
    let playable =
      unplayable.isEmpty
      ? tracks.paths : tracks.paths.indices.filter { !unplayable.contains($0) }.map { tracks.paths[$0] }
    guard !playable.isEmpty else { throw CLIError(message: "nothing to play", status: .fileError) }
    return playable
  }

  /// Waits for a command's future; a failure ends `play` with the error's exit status.
  private func step(_ future: Future<PlayerState, PlayerError>, _ session: PlayerSession) async throws {
    switch await session.timeline.settle(future, controller: session.controller) {
    case .success: return
    case .failure(let error): throw CLIError(message: error.message, status: Self.status(for: error))
    case .cancelled: throw CLIError(message: "cancelled", status: .failed)
    }
  }

  static func status(for error: PlayerError) -> ExitStatus {
    if error.isFileError { return .fileError }
    if error.isOutputError || error.code == "timeout" { return .outputError }
    return .failed
  }
}

/// Files that could not be played: on stderr until a live view takes over, then in the view (which lists them
/// all again when it closes).
final class SkipReports: Sendable {
  private let state = Lock<(view: (any PlaybackView)?, messages: [String])>((nil, []))

  /// Reports one file, on stderr or in the view.
  func report(_ message: String) {
    let view = state.withLock { state in
      state.messages.append(message)
      return state.view
    }
    if let view { view.report(message) } else { Console.error(message) }
  }

  /// Sends later reports to `view`; `replaying` gives it the earlier ones too (a live view clears the screen
  /// they were printed on).
  func attach(_ view: any PlaybackView, replaying: Bool) {
    let earlier = state.withLock { state in
      state.view = view
      return state.messages
    }
    if replaying { earlier.forEach(view.report) }
  }

  /// Shows `message` on the view's notice line (stderr without one), without counting it: it is no file's
  /// failure (a stream reconnecting).
  func notice(_ message: String) {
    let view = state.withLock { $0.view }
    if let view { view.notice(message) } else { Console.error(message) }
  }

  /// Whether any file was reported (the exit status is then 3).
  var any: Bool { state.withLock { !$0.messages.isEmpty } }
}
