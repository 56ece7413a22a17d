import Testing

@testable import PlayerCore
@testable import PlayerPulse

/// When a stream prepared before the first `open` is ready, and whether it is uncorked first: every order in
/// which its creation, its first audio and the caller's clearance can arrive.
@Suite struct PreparedStartTests {
  enum Event: CustomStringConvertible {
    case created, filled, wentBeforeFilled, cleared, refused

    var description: String {
      switch self {
      case .created: "created"
      case .filled: "filled"
      case .wentBeforeFilled: "went"
      case .cleared: "cleared"
      case .refused: "refused"
      }
    }
  }

  /// Runs `events` and returns the actions that were not `.wait`.
  private func run(playing: Bool, _ events: [Event]) -> [PreparedStart.Action] {
    var start = PreparedStart(playing: playing)
    var actions: [PreparedStart.Action] = []
    for event in events {
      let action: PreparedStart.Action
      switch event {
      case .created: action = start.created()
      case .filled: action = start.prefillEnded(filled: true)
      case .wentBeforeFilled: action = start.prefillEnded(filled: false)
      case .cleared: action = start.clearanceSettled(succeeded: true)
      case .refused: action = start.clearanceSettled(succeeded: false)
      }
      if action != .wait { actions.append(action) }
    }
    return actions
  }

  @Test(arguments: [
    // A stream to stay corked is ready as soon as the server made it; its audio is not waited for.
    (false, [Event.created], [PreparedStart.Action.resolve]),
    (false, [.created, .filled], [.resolve]),
    // A stream to play uncorks once created, filled and cleared, in whatever order those come.
    (true, [.created, .filled, .cleared], [.uncork]),
    (true, [.created, .cleared, .filled], [.uncork]),
    (true, [.cleared, .created, .filled], [.uncork]),
    // Not before all three.
    (true, [.created, .filled], []),
    (true, [.created, .cleared], []),
    (true, [.cleared, .filled], []),
    // Refused: it stays corked and is ready once made, filled or not.
    (true, [.created, .refused], [.resolve]),
    (true, [.refused, .created], [.resolve]),
    (true, [.created, .filled, .refused], [.resolve]),
    // The stream went before its first audio: the prepared stream is cancelled.
    (true, [.created, .cleared, .wentBeforeFilled], [.cancel]),
    (true, [.created, .wentBeforeFilled, .cleared], [.cancel]),
    // Settled once: nothing after the first decision.
    (true, [.created, .filled, .cleared, .filled, .cleared], [.uncork]),
    (true, [.created, .refused, .filled, .cleared], [.resolve]),
    (false, [.created, .created], [.resolve]),
  ])
  func decides(playing: Bool, events: [Event], expected: [PreparedStart.Action]) {
    #expect(run(playing: playing, events) == expected, "playing: \(playing), events: \(events)")
  }

  @Test func onlyAStreamToPlayFollowsItsPrefill() {
    #expect(PreparedStart(playing: true).followsPrefill)
    #expect(!PreparedStart(playing: false).followsPrefill)
  }

  @Test func aFailedCreationEndsIt() {
    var start = PreparedStart(playing: true)
    start.finish()
    #expect(start.created() == .wait)
    #expect(start.clearanceSettled(succeeded: true) == .wait)
    #expect(start.prefillEnded(filled: true) == .wait)
  }
}
