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
    return await probe.judge(check, from: from, state: { controller.state })
  }

  /// Why the state and the server disagree about splay's stream, when the rule is declared and they still do
  /// ``settling`` seconds after the line: a server's own report may follow its acknowledgement a moment later
  /// (PipeWire's still says a stream is uncorked just after it acknowledged the cork).
  func streamMismatch(controller: PlayerController, since began: ContinuousClock.Instant) async -> String? {
    guard matchesServer, let probe else { return nil }
    let deadline = ContinuousClock.now + .milliseconds(Int(Self.settling * 1000))
    while true {
      let state = controller.state
      let reading = await probe.stream()
      // A state published while the server was read is read against again, while there is time.
      guard state.revision == controller.state.revision || ContinuousClock.now >= deadline else { continue }
      var mismatch: String?
      switch reading {
      case .failure(let failure): mismatch = "cannot read the server (\(failure.reason))"
      case .success(let stream): mismatch = ServerStreamMatch.mismatch(state, stream)
      }
      guard let mismatch else { return nil }
      if ContinuousClock.now >= deadline {
        let at = formatSeconds((ContinuousClock.now - began).seconds)
        return "state-matches-server: \(mismatch), at \(at) s"
      }
      try? await Task.sleep(for: .milliseconds(10))
    }
  }

  /// How long the server may take to report what it acknowledged, in seconds.
  static let settling = 0.2

  private static let noServer = "the simulated output has no server to read"
}
