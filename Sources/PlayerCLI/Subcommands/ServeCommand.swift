import ArgumentParser
import ControlProtocol
import Dispatch
import FoundationEssentials
import Futures
import Glibc
import NIOCore
import NIOPosix
import PlayerCore
import SplayConfig
import SplayConsole

/// `splay serve`: a player controlled over a Unix socket with JSON lines (docs/protocol.md).
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run a player controlled over a Unix socket (JSON lines; see docs/protocol.md).",
    discussion: """
      The socket is created with mode 0600 (default $XDG_RUNTIME_DIR/splay.sock). serve refuses to start \
      when another splay serves the same socket, and replaces a stale socket file. It runs until a client \
      sends {"command": "quit"} or it receives SIGTERM, SIGINT or SIGHUP, then saves its session and removes the socket. When the audio \
      server goes away, serve stays up, publishes failed(output-lost) and reconnects in the background with \
      backoff; once the server is back the track is open again, paused at the last confirmed position. \
      With a D-Bus session bus, serve is also an MPRIS player (org.mpris.MediaPlayer2.splay) for media keys, \
      playerctl and desktop widgets (see docs/mpris.md); --no-mpris (or mpris = false in config.toml) turns that off.
      """)

  @OptionGroup var outputOptions: OutputOptions

  @OptionGroup var replayGainOptions: ReplayGainOptions

  @OptionGroup var mprisOptions: MPRISOptions

  @OptionGroup var hookOptions: HookOptions

  @Option(
    name: .long,
    help: ArgumentHelp("The socket path (default: the config's, else $XDG_RUNTIME_DIR/splay.sock).", valueName: "path"))
  var socket: String?

  @Flag(
    inversion: .prefixedNo,
    help: """
      Restore the last session (queue, track and position, paused; volume, repeat, shuffle) at start and keep \
      it in $XDG_STATE_HOME/splay/state.json as it changes (default: on, or the config's 'resume').
      """)
  var resume: Bool?

  @Option(name: .long, help: ArgumentHelp("The most clients connected at once.", valueName: "count"))
  var maxClients: Int = 64

  func run() async throws {
    let config = try ConfigFile.load()
    let chosen = socket ?? config.socket?.value
    let path = try chosen ?? SocketPath.defaultPath()
    try SocketPath.checkDirectory(of: path, explicit: chosen != nil)
    try SocketPath.claim(path)

    // Before the socket exists: a SIGTERM sent as soon as a client can connect quits cleanly (before, the
    // default action could still kill serve with status 15).
    let (quit, quitResolver) = Future<Void, Never>.pending()
    let signalQueue = DispatchQueue(label: "splay.signals")
    let signals = [SIGTERM, SIGINT, SIGHUP].map { sig -> any DispatchSourceSignal in
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
      source.setEventHandler { quitResolver.resolve() }
      source.resume()
      return source
    }
    defer { for source in signals { source.cancel() } }

    // One thread serves every client, and the controller takes up the server's answers on it too: a
    // confirmation then becomes a reply without waking another thread (opening files stays off it).
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop = group.next()
    let session = PlayerSession(
      outputOptions.settings(with: config), replayGain: replayGainOptions.policy(with: config),
      answers: ExecutionContext { job in loop.execute(job) }
    ) { error in
      Console.error(error.message)
    }
    // Restored before the socket exists: the first client finds the session, never the empty player before it.
    let saver = await keepSession(of: session.controller, config: config)
    // After the restore: bringing a session back is not a new track of the listener's.
    let hooks = hookOptions.start(following: session.controller, config: config) { Console.error($0) }
    let hub = ControlHub(controller: session.controller, maximumClients: maxClients) { quitResolver.resolve() }
    let bootstrap = ServerBootstrap(group: group)
      .serverChannelOption(.backlog, value: 64)
      .childChannelOption(.autoRead, value: true)
      .childChannelOption(.writeBufferWaterMark, value: .init(low: 256 * 1024, high: 4 * 1024 * 1024))
      .childChannelInitializer { channel in
        PeerCredentials.refusal(for: channel).flatMapThrowing { refusal in
          try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(LineFrameDecoder(maximumLength: ControlRequest.maximumLineLength)))
          try channel.pipeline.syncOperations.addHandler(ControlConnectionHandler(hub: hub, refusal: refusal))
        }
      }
    let previousMask = umask(0o177)
    let channel: any Channel
    do {
      channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
      umask(previousMask)
    } catch {
      umask(previousMask)
      try? await group.shutdownGracefully()
      throw CLIError(message: "cannot serve on \(path): \(error)", status: .failed)
    }
    chmod(path, 0o600)
    Console.error("serving on \(path)")
    // Once the socket is ours: a second serve that is refused never appears on the bus.
    let mpris = mprisOptions.start(for: session, config: config) { quitResolver.resolve() }

    let ticker = session.simulated.map { SimulatedTicker(clock: $0.clock) }
    ticker?.start()
    let reconnector =
      session.simulated == nil ? OutputReconnector(controller: session.controller) { Console.error($0) } : nil
    reconnector?.start()
    _ = await quit.settled
    reconnector?.stop()
    ticker?.stop()
    try? await channel.close()
    unlink(path)
    if let saver {
      // Where the audio really is as it stops: the position fresh from the server, not the last anchor.
      _ = await session.controller.refresh().settled
      saver.finish(with: session.controller.state)
    }
    _ = await session.controller.shutdown().settled
    await hooks.finish(within: 2)
    // After the controller: the calls it cancelled on the way out are answered before the connection closes.
    await mpris?.stopWithin()
    try? await group.shutdownGracefully()
  }
}

extension ServeCommand {
  /// Restores the last session into `controller` and keeps it from then on, unless resuming is off; nil then,
  /// or without a home for the state file.
  private func keepSession(of controller: PlayerController, config: UserConfig) async -> SessionSaver? {
    guard resume ?? config.resume?.value ?? true,
      let file = SessionFile(name: "state.json", environment: ProcessInfo.processInfo.environment)
    else { return nil }
    let outcome = await SessionRestorer.restore(from: file, into: controller) { Console.error($0) }
    if let failure = outcome.failure {
      Console.error("\(file.path): cannot restore the session: \(failure.message); it is kept until the queue changes")
    }
    let saver = SessionSaver(
      file: file, baseline: outcome.baseline, restored: outcome.restored, failed: outcome.failure != nil
    ) {
      Console.error($0)
    }
    saver.start(following: controller)
    return saver
  }
}

/// Moves a simulated output's virtual clock with the wall clock, so a served simulated player "plays" in real
/// time for the clients watching it.
final class SimulatedTicker: Sendable {
  private let clock: VirtualClock
  // Dispatch sources are not Sendable; the lock makes start and stop safe from any thread.
  private let timer: Lock<any DispatchSourceTimer>

  init(clock: VirtualClock) {
    self.clock = clock
    timer = Lock(DispatchSource.makeTimerSource(queue: DispatchQueue(label: "splay.ticker")))
  }

  func start() {
    timer.withLock { timer in
      timer.schedule(deadline: .now(), repeating: .milliseconds(10))
      timer.setEventHandler { [clock] in clock.advance(by: .milliseconds(10)) }
      timer.resume()
    }
  }

  func stop() { timer.withLock { $0.cancel() } }
}
