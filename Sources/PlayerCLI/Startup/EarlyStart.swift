import CEarlyConnect
import Dispatch
import Futures
import Glibc
import PlayerCore
import PlayerDecoding
import PlayerLibrary
import PlayerPulse

/// What `splay play` starts before its command line is parsed: the connection to the audio server and a
/// stream for the file it will most likely play first.
///
/// What it buys, and how to remove it: first audio close to `paplay`'s instead of several milliseconds
/// behind (docs/performance.md, "First audio"). All of it is this folder, the C targets CEarlyConnect (the connection begun
/// before `main`, and the one rule of what starts early) and CThreadStart, `PulseOutput.init(adopting:)` and
/// `prepare(_:playingWhen:)`, and `ProbedDecoderFactory.keep`. To remove it, drop the call in `Splay.main`
/// and the `EarlyStart.take` in the commands: every command then makes its own output after the parse, as
/// `run` and `serve` do.
///
/// Parsing is the longest step of the start-up (ArgumentParser reflects over every command and option type, about 2
/// ms), and connecting, opening the first file and creating its stream are the longest waits after it. Begun first,
/// on a thread of their own, they happen while the main thread parses, on the other core and in the server. The
/// connection is begun even earlier, before `main`, by a C constructor (CEarlyConnect) that decides from the raw
/// arguments by the rule below; this thread takes it over (``PulseOutput/init(configuration:adopting:)``). What the
/// parse decides is not guessed: the early output is used only when the parsed options ask for exactly the output
/// it is (`--output simulated`, `--server` or `--sink` make their own), and its prepared stream only when the
/// controller opens that very decoder first (``PulseOutput/prepare(_:playingWhen:)``); anything else replaces it. When
/// the parse is done before the thread has made its output, the command makes its own and the connection begun
/// before `main` is closed. A command line that names an output or asks for help starts nothing early: it would
/// not use the connection, and it should not start or touch the user's sound server (a socket-activated one starts
/// on the first connection).
///
/// The prepared stream also starts playing before the parse ends when the command line can mean nothing else
/// than "play these files from the start of the first": `play`, file operands, and no option but `--json` and
/// `--loop` (the rule is decided once, in C: `splay_early_start_mode`), as `paplay FILE` starts at once. The controller's first `open` then takes a
/// running stream and confirms `playing` with the server's acknowledgement of that uncork; the state still
/// changes only on the server's word. Every other command line waits for the parse, as before. With ReplayGain on
/// (`--replaygain` or the config's key, not "off"), only the connection is begun: no stream is prepared.
enum EarlyStart {
  /// An output and the decoder factory whose kept decoder the output may be preparing a stream for. They go
  /// together: a decoder being read into one output's stream is not to be handed to another output.
  struct Session: Sendable {
    let output: PulseOutput
    let decoders: ProbedDecoderFactory
  }

  private enum State {
    case none
    /// The thread is making the session.
    case starting
    /// Made, not taken yet.
    case ready(Session)
    /// The command took the session: it checks its files itself from now on.
    case taken
    /// Not wanted: the thread stops at its next step and lets the session go.
    case abandoned

    var isStarting: Bool {
      if case .starting = self { return true }
      return false
    }
  }

  private static let state = Lock(State.none)

  /// The configuration the early output is made with: the default server and sink.
  static let configuration = PulseOutput.Configuration()

  /// Starts when the process began connecting before `main` (CEarlyConnect), which it does for `splay play`
  /// with arguments that name no output and ask for no help. Only `play`: `serve` and `run` are not started to
  /// be heard at once, and a script or test that runs them with the simulated output should not touch a server
  /// at all. `arguments` are the process's, program name first.
  static func begin(arguments: [String]) {
    guard splay_early_connection_began() != 0 else { return }
    state.withLock { $0 = .starting }
    let operands = arguments.dropFirst(2).filter { !$0.hasPrefix("-") }
    let mode = Int(splay_early_start_mode())
    let playing = mode == SPLAY_EARLY_PLAY
    // With ReplayGain on, the first file plays through a gain: a stream prepared for it bare would be let go.
    let preparing = mode != SPLAY_EARLY_CONNECT
    let settled = DispatchSemaphore(value: 0)
    DetachedThread.startElsewhere {
      // Whatever way this ends, the main thread stops waiting (below) once nothing more is on its way.
      var handedOver = false
      defer { if !handedOver { settled.signal() } }
      // Goes on only if still wanted: a parse that finished first has made its own connection, and a second
      // handshake would only keep the server from answering that one.
      guard state.withLock({ $0.isStarting }) else { return splay_early_connection_discard() }
      // The first operand that names a regular file is most likely the first track; an option's value that
      // happens to name one (`--start ./x`) only costs a stream that the first `open` replaces. It is opened
      // before the output is made: opening needs no connection, and making the output waits for the
      // connection's lock while the handshake holds it.
      // A folder, playlist or cue sheet before it comes first, and names its first track only once expanded; so
      // does a FLAC file with a sheet inside, whose first track is not the file from its start.
      let first =
        !preparing
        ? nil
        : operands.first(where: { isRegularFile($0) || isDirectory($0) })
          .flatMap {
            isRegularFile($0) && PlaylistParser.kind(ofPath: $0) == nil && !CueSheetFile.isSheet($0)
              && !(FLACCueSheet.mayHoldOne($0) && FLACCueSheet.read(atPath: $0) != nil) ? $0 : nil
          }
      let opened = first.flatMap { try? SndfileDecoder(path: $0, deferringLengthCheck: true) }
      let session = Session(output: makeOutput(), decoders: ProbedDecoderFactory(opener: PlayerSession.fileDecoders()))
      let wanted = state.withLock { state in
        guard case .starting = state else { return false }
        state = .ready(session)
        return true
      }
      guard wanted else { return }
      session.output.connectEarly()
      // Not once the command has taken the session (it checks the file itself then) or chose another output.
      guard case .ready = state.withLock({ $0 }), let first, let decoder = opened else { return }
      // The stream is requested before the file's length is checked (a seek near its end, about 0.3 ms for a
      // FLAC file), and may start playing only once it passed: the check runs while the server makes the
      // stream. A file that fails it is not kept, so the command checks it again and reports why.
      let (checked, check) = Future<Void, PlayerError>.pending()
      let prepared = session.output.prepare(decoder, playingWhen: playing && first == operands.first ? checked : nil)
      handedOver = true
      prepared.whenComplete { _ in settled.signal() }
      do throws(PlayerError) {
        try decoder.checkLength()
        // Played only if this decoder is the one the command's first `open` gets: when the command checked the
        // file itself first (its parse ended during this check), it opens another decoder, and a stream let go
        // here would play the track's opening before that one starts it again.
        guard session.decoders.keep(decoder, for: first) else { throw .cancelled }
        check.resolve()
      } catch {
        check.reject(error)
      }
    }
    // The parse is not needed for the first sound and competes for the CPU with connecting and decoding, so
    // it waits until the stream plays, the early start gives up, or 10 ms pass (docs/architecture.md has the
    // measurements).
    if playing { _ = settled.wait(timeout: .now() + .milliseconds(10)) }
  }

  /// The output of the early session: on the connection begun before `main` when there is one, else on its own.
  private static func makeOutput() -> PulseOutput {
    var mainloop: UnsafeMutableRawPointer?
    var context: UnsafeMutableRawPointer?
    guard splay_early_connection_take(&mainloop, &context) != 0, let mainloop, let context else {
      return PulseOutput(configuration: configuration)
    }
    let connection = PulseOutput.Connection(mainloop: OpaquePointer(mainloop), context: OpaquePointer(context))
    return PulseOutput(configuration: configuration, adopting: connection)
  }

  /// The early session when it is there and `configuration` (nil: not a PulseAudio output) is the one its
  /// output was made with; nil otherwise, and the caller makes its own. Nothing early is handed out after
  /// this call, whatever it returns.
  static func take(matching configuration: PulseOutput.Configuration?) -> Session? {
    state.withLock { state in
      guard case .ready(let session) = state, configuration == Self.configuration else {
        state = .abandoned
        return nil
      }
      state = .taken
      return session
    }
  }

  private static func isRegularFile(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
  }

  private static func isDirectory(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
  }
}
