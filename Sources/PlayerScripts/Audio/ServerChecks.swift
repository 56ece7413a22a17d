import Futures
import PlayerCore

/// The checks a run makes of the server beside the player: `expect audio` lines and
/// `check always state-matches-server`, through the runner's ``ScriptServerProbe``.
final class ServerChecks: Sendable {
  private let script: PlaybackScript
  private let probe: (any ScriptServerProbe)?
  private let listens: Bool
  private let matchesServer: Bool
  /// Where the audio should have begun, for `expect audio playing` without a position: the position the last
  /// repositioning command confirmed.
  private let audioFrom = Lock(0.0)

  /// The checks `script` asks for, made through `probe` (nil: none can be judged).
  init(script: PlaybackScript, probe: (any ScriptServerProbe)?) {
    self.script = script
    self.probe = probe
    listens = script.steps.contains { step in
      if case .expect(.audio) = step.action { return true }
      return false
    }
    matchesServer = script.invariants.contains(.stateMatchesServer)
  }

  /// Starts listening to the sink when a line will judge the audio; says once that the server rule cannot be
  /// judged without a server.
  func begin(note: (String) -> Void) async {
    if matchesServer, probe == nil {
      note("\(script.name): check always state-matches-server: not judged: \(Self.noServer)")
    }
    if listens, let probe { await probe.start() }
  }

  /// Stops listening.
  func end() async {
    if listens, let probe { await probe.stop() }
  }

  /// A repositioning command confirmed `state`; a `play` that `resumed` a pause does not move the audio's start.
  func repositioned(_ state: PlayerState, resumed: Bool) {
    guard !resumed else { return }
    audioFrom.withLock { $0 = state.position.seconds }
  }

  /// Judges an `expect audio` line.
  func judge(_ check: AudioCheck, controller: PlayerController) async -> AudioVerdict {
    guard let probe else { return .notJudged(Self.noServer) }
    let from = audioFrom.withLock { $0 }
    return await probe.judge(check, from: from, state: controller.state)
  }

  /// Why the state and the server disagree about splay's stream, when the rule is declared and they do.
  func streamMismatch(controller: PlayerController, since began: ContinuousClock.Instant) async -> String? {
    guard matchesServer, let probe else { return nil }
    // A state published while the server was read is read against again.
    for _ in 0..<3 {
      let state = controller.state
      let reading = await probe.stream()
      guard state.revision == controller.state.revision else { continue }
      let at = formatSeconds((ContinuousClock.now - began).seconds)
      switch reading {
      case .failure(let failure): return "state-matches-server: cannot read the server (\(failure.reason)), at \(at) s"
      case .success(let stream):
        return ServerStreamMatch.mismatch(state, stream).map { "state-matches-server: \($0), at \(at) s" }
      }
    }
    return nil
  }

  private static let noServer = "the simulated output has no server to read"
}
