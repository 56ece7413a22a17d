import Futures
import PlayerCore
import PlayerLibrary

/// Runs a ``PlaybackScript`` against a controller: each command waits for its future, each expectation is
/// checked against the confirmed state.
public struct ScriptRunner: Sendable {
  /// Why a script failed: where, what was expected and what was confirmed.
  public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The script's name.
    public var script: String
    /// The 1-based line.
    public var line: Int
    /// What went wrong, in one line.
    public var message: String

    /// `SCRIPT:LINE: message`.
    public var description: String { "\(script):\(line): \(message)" }
  }

  private let controller: PlayerController
  private let timeline: any ScriptTimeline
  private let expander: TrackListExpander
  private let onSkipped: @Sendable (String) -> Void
  private let onNote: @Sendable (String) -> Void
  private let underflows: @Sendable () -> Int
  private let probe: (any ScriptServerProbe)?

  /// Creates a runner for `controller`, letting time pass on `timeline`. Folders and playlists in `load` and
  /// `enqueue` are expanded by `expander`; each entry left out is passed to `onSkipped` as a line naming the
  /// script's line (`demo.splay:3: list.m3u:4: gone.flac: no such file`). Each position trigger that fires
  /// passes `onNote` a line saying how late the confirmed position was (`demo.splay:4: at 5: confirmed
  /// 5.003 s, 3.0 ms late`). `underflows` counts the times the output ran out of audio so far, for
  /// `check always no-underrun`. `probe` sees the server beside the player, for `expect audio` and
  /// `check always state-matches-server`; without one (the simulated output) those are not judged.
  public init(
    controller: PlayerController, timeline: any ScriptTimeline, expander: TrackListExpander = TrackListExpander(),
    onSkipped: @escaping @Sendable (String) -> Void = { _ in },
    onNote: @escaping @Sendable (String) -> Void = { _ in }, underflows: @escaping @Sendable () -> Int = { 0 },
    probe: (any ScriptServerProbe)? = nil
  ) {
    self.underflows = underflows
    self.probe = probe
    self.controller = controller
    self.timeline = timeline
    self.expander = expander
    self.onSkipped = onSkipped
    self.onNote = onNote
  }

  /// Runs every step; stops at the first failed command or expectation and returns it, or nil on success. A
  /// script that declares a known failure (`expect-failure`) succeeds when it fails so, said to `onNote`, and
  /// fails, at the declaration, when it passes.
  /// `verify` judges the state once each step has run (a recorded log, `--expect-log`): a message fails the
  /// step. `onStep` hears how each step that ran went, in order (for `--report` and `--record`).
  public func run(
    _ script: PlaybackScript, verify: (PlaybackScript.Step, PlayerState) -> String? = { _, _ in nil },
    onStep: (ScriptStepOutcome) -> Void = { _ in }
  ) async -> Failure? {
    let failure = await runSteps(script, verify: verify, onStep: onStep)
    guard let known = script.expectedFailure else { return failure }
    guard let failure else {
      let what = known.text.map { " (\"\($0)\")" } ?? ""
      return Failure(
        script: script.name, line: known.line,
        message: "the known failure\(what) did not happen: the script passes, remove expect-failure")
    }
    guard known.matches(failure.message) else { return failure }
    onNote("\(failure): the known failure (expect-failure, line \(known.line))")
    return nil
  }

  private func runSteps(
    _ script: PlaybackScript, verify: (PlaybackScript.Step, PlayerState) -> String?,
    onStep: (ScriptStepOutcome) -> Void
  ) async -> Failure? {
    var lastError: (line: Int, error: PlayerError)?
    let steps = script.steps
    let watch = script.invariants.isEmpty ? nil : InvariantWatch(script.invariants, underflows: underflows)
    let observation = watch.map { watch in controller.observe { watch.observe($0) } }
    defer { observation?.cancel() }
    let server = ServerChecks(script: script, probe: probe)
    await server.begin(note: onNote)
    let began = ContinuousClock.now
    for (index, step) in steps.enumerated() {
      let started = ContinuousClock.now
      let before = controller.state.status.name
      var message: String?
      var notJudged: String?
      if case .expect(.audio(let check)) = step.action {
        let said = "\(step.place(in: script)): \(step.text)"
        switch await server.judge(check, controller: controller) {
        case .heard(let what): onNote("\(said): \(what)")
        case .wrong(let what): message = "expect audio: \(what)"
        case .notJudged(let why):
          notJudged = why
          onNote("\(said): not judged: \(why)")
        }
      } else {
        message = await perform(step, script: script, expectsError: expectsError(steps, at: index + 1), &lastError)
      }
      if step.action.repositions {
        watch?.moved(through: controller.state.revision)
        if message == nil { server.repositioned(controller.state, resumed: before == "paused") }
      }
      if message == nil { message = watch?.takeViolation() }
      if message == nil { message = await server.streamMismatch(controller: controller, since: began) }
      let taken = ContinuousClock.now - started
      let state = controller.state
      // Verified even when the line failed: a log recorded from a known failure has the line too.
      let verified = verify(step, state)
      if message == nil { message = verified }
      onStep(
        ScriptStepOutcome(step: step, failure: message, seconds: taken.seconds, state: state, notJudged: notJudged))
      if let message {
        await server.end()
        return Failure(script: step.file ?? script.name, line: step.line, message: message)
      }
    }
    await server.end()
    return nil
  }

  /// Runs one step; returns why it failed, or nil. `lastError` is the failed command an `expect error` looks at.
  private func perform(
    _ step: PlaybackScript.Step, script: PlaybackScript, expectsError: Bool,
    _ lastError: inout (line: Int, error: PlayerError)?
  ) async -> String? {
    switch step.action {
    case .command(let named):
      lastError = await send(named, place: step.place(in: script), line: step.line)
      if let failed = lastError, !expectsError {
        return "\(named) failed: \(failed.error.code): \(failed.error.message)"
      }
    case .at(let point, let named):
      let said = point.isPosition ? "at \(point)" : "on \(point)"
      if case .failure(let unreached) = await reach(point, said: said, place: step.place(in: script)) {
        return "\(said): \(unreached.message)"
      }
      lastError = await send(named, place: step.place(in: script), line: step.line)
      if let failed = lastError, !expectsError {
        return "\(said): \(named) failed: \(failed.error.code): \(failed.error.message)"
      }
    case .waitFor(let point):
      let said = point.isPosition ? "wait until position >= \(point)" : "wait until \(point)"
      if case .failure(let unreached) = await reach(point, said: said, place: step.place(in: script)) {
        return "\(said): \(unreached.message)"
      }
    case .expectError(let code):
      guard let failed = lastError else { return "expected error \(code), but the command before succeeded" }
      guard failed.error.code == code else {
        return "expected error \(code), got \(failed.error.code): \(failed.error.message)"
      }
      lastError = nil
    case .wait(let seconds):
      await timeline.pass(seconds: seconds, controller: controller)
    case .waitUntil(let status, let timeout):
      let result = await timeline.wait(
        until: { $0.status.name == status }, timeout: timeout, controller: controller)
      if !result.held {
        return "waited \(formatSeconds(timeout)) s for state \(status), confirmed \(result.state.status.name)"
      }
    case .expect(let expectation):
      return await check(expectation)
    }
    return nil
  }

  /// Sends a command, its folders and playlists expanded, and waits for it; returns its error, if any.
  private func send(_ named: PlayerCommand, place: String, line: Int) async -> (
    line: Int, error: PlayerError
  )? {
    let expanded = expander.expand(named)
    for entry in expanded.skipped { onSkipped("\(place): \(entry.message)") }
    let outcome: Outcome<PlayerState, PlayerError>
    switch expanded.command {
    case .success(let command): outcome = await timeline.settle(controller.send(command), controller: controller)
    case .failure(let error): outcome = .failure(error)
    }
    switch outcome {
    case .success: return nil
    case .failure(let error): return (line, error)
    case .cancelled: return (line, .cancelled)
    }
  }

  /// Whether step `index` is an `expect error` line, which a failure of the step before is for.
  private func expectsError(_ steps: [PlaybackScript.Step], at index: Int) -> Bool {
    guard index < steps.count, case .expectError = steps[index].action else { return false }
    return true
  }

  /// Waits for `point` (`said` as the script says it); a position says how late the confirmed position was
  /// when it got there.
  private func reach(_ point: TriggerPoint, said: String, place: String) async -> Result<
    PlayerState, TriggerWatch.Unreached
  > {
    let reached = await TriggerWatch(controller: controller, timeline: timeline).reach(point)
    if point.isPosition, case .success(let state) = reached, let goal = TriggerWatch.goal(of: point, in: state) {
      let late = (max(0, state.position.seconds - goal) * 10_000).rounded() / 10
      onNote(
        "\(place): \(said): confirmed \(formatSeconds(state.position.seconds)) s, \(late) ms late")
    }
    return reached
  }

  /// Checks one expectation against a freshly confirmed state; returns the failure message, if any.
  private func check(_ expectation: Expectation) async -> String? {
    var state = controller.state
    if case .position = expectation, state.status.hasOpenTrack {
      // A position is only worth checking as the output confirms it now, not as it was last published.
      if case .success(let fresh) = await timeline.settle(controller.refresh(), controller: controller) {
        state = fresh
      }
    }
    switch expectation {
    case .state(let name):
      return state.status.name == name ? nil : "expected state \(name), confirmed \(state.status.name)"
    case .position(let seconds, let tolerance):
      let actual = state.position.seconds
      return abs(actual - seconds) <= tolerance + 1e-9
        ? nil
        : "expected position \(formatSeconds(seconds)) ± \(formatSeconds(tolerance)), confirmed \(formatSeconds(actual))"
    case .volume(let level):
      return state.volume == level ? nil : "expected volume \(level), confirmed \(state.volume)"
    case .track(let number):
      let actual = state.index.map { $0 + 1 }
      return actual == number ? nil : "expected track \(number), confirmed \(actual.map(String.init) ?? "none")"
    case .title(let title):
      let actual = state.track?.displayTitle
      return actual == title
        ? nil : "expected title \"\(title)\", confirmed \(actual.map { "\"\($0)\"" } ?? "no track")"
    case .audio:
      // Judged by the server checks, before a step gets here.
      return nil
    }
  }
}
