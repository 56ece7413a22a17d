import ArgumentParser
import Futures
import PlayerCore
import Synchronization

/// `splay play FILE...`: plays files in order, with a live view on a terminal or JSON lines otherwise.
struct PlayCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play",
    abstract: "Play audio files in order, then exit.",
    discussion: """
      On a terminal, a live view shows the confirmed state; keys: space pause/resume, ←/→ seek −5/+5 s, \
      ↓/↑ −60/+60 s, +/- volume, n/p next/previous, q quit.
      Otherwise (or with --json), every published state is printed as one JSON object per line.
      A file that cannot be read is reported on stderr and skipped; the exit status is then 3.
      """)

  @OptionGroup var outputOptions: OutputOptions

  @Flag(name: .long, help: "Print each confirmed state as a JSON line instead of the live view.")
  var json = false

  @Option(name: .long, help: ArgumentHelp("Start the first track at this many seconds.", valueName: "seconds"))
  var start: Double?

  @Option(name: .long, help: ArgumentHelp("Initial volume in percent (0-100).", valueName: "percent"))
  var volume: Int?

  @Flag(name: .long, help: "Start again from the first track after the last one ends.")
  var loop = false

  @Flag(name: .long, help: "Play the files in a random order.")
  var shuffle = false

  @Argument(help: ArgumentHelp("Audio files (WAV, FLAC, Ogg Vorbis, Opus, MP3).", valueName: "file"))
  var files: [String]

  func validate() throws {
    if let start, !(start.isFinite && start >= 0 && start <= CommandParser.maximumSeconds) {
      throw ValidationError("--start must be a number of seconds of at least 0")
    }
    if let volume, !(0...100).contains(volume) {
      throw ValidationError("--volume must be between 0 and 100")
    }
  }

  func run() async throws {
    let skipped = Mutex(false)
    // What began before the parse (connecting, the first file's stream) is taken over when it is what the
    // options ask for; otherwise the output is made first, so that connecting overlaps with probing the files.
    let early = EarlyStart.take(matching: outputOptions.pulseConfiguration)
    let decoders = early?.decoders ?? ProbedDecoderFactory()
    let session = outputOptions.makeSession(decoders: decoders, pulse: early?.output) { error in
      Console.error(error.message)
      skipped.withLock { $0 = true }
    }
    var playable: [String] = []
    for path in files {
      do {
        try decoders.check(path)
        playable.append(path)
      } catch {
        Console.error(error.message)
        skipped.withLock { $0 = true }
      }
    }
    guard !playable.isEmpty else { throw CLIError(message: "nothing to play", status: .fileError) }
    if shuffle { playable.shuffle() }

    let controller = session.controller
    let (finished, finish) = Future<PlayerState, Never>.pending()
    // When a command fails and `play` ends early, nobody waits for the end any more: settle it on the way out
    // rather than leave it to the unresolved-future diagnostic.
    defer { finish.settle(with: .cancelled) }
    let interactive = !json && Console.stdoutIsTerminal && session.simulated == nil
    let view: any PlaybackView =
      interactive ? TerminalView(controller: controller, onQuit: { finish.resolve(controller.state) }) : JSONLinesView()
    let loop = self.loop
    let observation = controller.observe { state in
      view.show(state)
      switch state.status {
      case .ended where loop: controller.play()
      case .ended, .failed: finish.resolve(state)
      default: break
      }
    }
    defer { observation.cancel() }
    view.begin()
    defer { view.end() }

    // Sent together: the controller runs them in order, each once the one before was confirmed, and the first
    // sound does not wait for this task to wake up between them. The first failure is the one reported.
    var steps = [controller.load(playable)]
    if let volume { steps.append(controller.setVolume(volume)) }
    if let start, start > 0 { steps.append(controller.seek(to: start)) }
    steps.append(controller.play())
    for future in steps { try await step(future, session) }

    if session.simulated != nil {
      // Virtual time: run the clock until the queue ends (a year of virtual time is the bound).
      _ = await session.timeline.wait(
        until: { _ in finished.outcome != nil }, timeout: 86_400 * 365, controller: controller)
    }
    let last = await finished.settled
    _ = await session.timeline.settle(controller.shutdown(), controller: controller)
    if case .success(let state) = last, case .failed(let error) = state.status {
      throw CLIError(message: error.message, status: .outputError)
    }
    if skipped.withLock({ $0 }) { throw CLIError(message: "some files could not be played", status: .fileError) }
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
