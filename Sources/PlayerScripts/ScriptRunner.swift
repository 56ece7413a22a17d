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

  /// Creates a runner for `controller`, letting time pass on `timeline`. Folders and playlists in `load` and
  /// `enqueue` are expanded by `expander`; each entry left out is passed to `onSkipped` as a line naming the
  /// script's line (`demo.splay:3: list.m3u:4: gone.flac: no such file`).
  public init(
    controller: PlayerController, timeline: any ScriptTimeline, expander: TrackListExpander = TrackListExpander(),
    onSkipped: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.controller = controller
    self.timeline = timeline
    self.expander = expander
    self.onSkipped = onSkipped
  }

  /// Runs every step; stops at the first failed command or expectation and returns it, or nil on success.
  public func run(_ script: PlaybackScript) async -> Failure? {
    var lastError: (line: Int, error: PlayerError)?
    var index = 0
    let steps = script.steps
    while index < steps.count {
      let step = steps[index]
      index += 1
      func fail(_ message: String) -> Failure { Failure(script: script.name, line: step.line, message: message) }
      switch step.action {
      case .command(let named):
        let expanded = expander.expand(named)
        for entry in expanded.skipped { onSkipped("\(script.name):\(step.line): \(entry.message)") }
        let outcome: Outcome<PlayerState, PlayerError>
        switch expanded.command {
        case .success(let command): outcome = await timeline.settle(controller.send(command), controller: controller)
        case .failure(let error): outcome = .failure(error)
        }
        let command = named
        switch outcome {
        case .success:
          lastError = nil
        case .failure(let error):
          lastError = (step.line, error)
        case .cancelled:
          lastError = (step.line, .cancelled)
        }
        if let failed = lastError {
          let expected = index < steps.count && { if case .expectError = steps[index].action { true } else { false } }()
          if !expected {
            return fail("\(command) failed: \(failed.error.code): \(failed.error.message)")
          }
        }
      case .expectError(let code):
        guard let failed = lastError else {
          return fail("expected error \(code), but the command before succeeded")
        }
        guard failed.error.code == code else {
          return fail("expected error \(code), got \(failed.error.code): \(failed.error.message)")
        }
        lastError = nil
      case .wait(let seconds):
        await timeline.pass(seconds: seconds, controller: controller)
      case .waitUntil(let status, let timeout):
        let result = await timeline.wait(
          until: { $0.status.name == status }, timeout: timeout, controller: controller)
        if !result.held {
          return fail("waited \(formatSeconds(timeout)) s for state \(status), confirmed \(result.state.status.name)")
        }
      case .expect(let expectation):
        if let message = await check(expectation) { return fail(message) }
      }
    }
    return nil
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
    }
  }
}
