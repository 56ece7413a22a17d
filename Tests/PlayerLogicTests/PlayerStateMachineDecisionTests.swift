import PlayerCore
import Testing

/// What the pure machine decides for every command in every status, as one table: a change to a rule shows up
/// as the row that changed. The player stands on track 2 of 3 ("b", 10 s long) at 4 s with the volume at 50 %,
/// except when idle (nothing loaded).
@Suite struct PlayerStateMachineDecisionTests {
  private static let queue: TrackQueue = ["a.flac", "b.flac", "c.flac"]
  private static let track = TrackInfo(path: "b.flac", format: "FLAC", sampleRate: 44_100, channels: 2, frames: 441_000)
  private static let failure = PlayerError.outputLost(detail: "gone")

  private static func machine(_ status: PlaybackStatus) -> PlayerStateMachine {
    let loaded = status != .idle
    return PlayerStateMachine(
      state: PlayerState(
        status: status, track: loaded ? track : nil,
        position: ConfirmedPosition(seconds: loaded ? 4 : 0, confirmedAt: 1, rate: status == .playing ? 1 : 0),
        volume: 50, queue: loaded ? queue : [], index: loaded ? 1 : nil), shuffleSeed: 1)
  }

  /// The commands of the table, by a short label.
  private static let commands: [(String, PlayerCommand)] = [
    ("play", .play), ("pause", .pause), ("toggle", .toggle), ("stop", .stop), ("seek +2", .seek(.relative(2))),
    ("seek 3", .seek(.absolute(3))), ("volume +10", .volume(.relative(10))), ("next", .next),
    ("previous", .previous), ("jump 2", .jump(toIndex: 2)), ("load", .load(["x.flac"])),
    ("enqueue", .enqueue(["x.flac"])),
    ("repeat one", .repeatMode(.one)), ("shuffle on", .shuffle(true)),
  ]

  private static func invalid(_ command: String, _ status: PlaybackStatus) -> PlayerStateMachine.CommandAction {
    .reject(.invalidState(command: command, state: status.name))
  }

  private static func open(_ index: Int, at seconds: Double = 0, then: OutputStep.StatusAfterOpen)
    -> PlayerStateMachine.CommandAction
  {
    .perform(.open(queue: queue, index: index, seconds: seconds, then: then))
  }

  private static let loadX = PlayerStateMachine.CommandAction.perform(
    .open(queue: ["x.flac"], index: 0, seconds: 0, then: .stopped))

  /// The expected decisions of one status; the commands whose decision is a completed state change
  /// (`enqueue` with a track open, `repeat`, `shuffle`) are checked by the field they change.
  private static func expected(_ status: PlaybackStatus) -> [String: PlayerStateMachine.CommandAction] {
    let volume = PlayerStateMachine.CommandAction.perform(.volume(60))
    switch status {
    case .idle:
      return [
        "play": invalid("play", status), "pause": invalid("pause", status), "toggle": invalid("play", status),
        "stop": invalid("stop", status), "seek +2": invalid("seek", status), "seek 3": invalid("seek", status),
        "volume +10": volume, "next": invalid("next", status), "previous": invalid("previous", status),
        "jump 2": invalid("jump", status), "load": loadX, "enqueue": loadX,
      ]
    case .stopped:
      return [
        "play": .perform(.start), "pause": invalid("pause", status), "toggle": .perform(.start),
        "stop": .complete(nil), "seek +2": .perform(.seek(6)), "seek 3": .perform(.seek(3)), "volume +10": volume,
        "next": open(2, then: .stopped), "previous": open(0, then: .stopped), "jump 2": open(2, then: .stopped),
        "load": loadX,
      ]
    case .playing:
      return [
        "play": .complete(nil), "pause": .perform(.pause), "toggle": .perform(.pause), "stop": .perform(.stop),
        "seek +2": .perform(.seekBy(2, duration: 10)), "seek 3": .perform(.seek(3)), "volume +10": volume,
        "next": open(2, then: .playing), "previous": open(0, then: .playing), "jump 2": open(2, then: .playing),
        "load": loadX,
      ]
    case .paused:
      return [
        "play": .perform(.start), "pause": .complete(nil), "toggle": .perform(.start), "stop": .perform(.stop),
        "seek +2": .perform(.seek(6)), "seek 3": .perform(.seek(3)), "volume +10": volume,
        "next": open(2, then: .paused), "previous": open(0, then: .paused), "jump 2": open(2, then: .paused),
        "load": loadX,
      ]
    case .ended:
      return [
        "play": open(0, then: .playing), "pause": invalid("pause", status), "toggle": open(0, then: .playing),
        "stop": invalid("stop", status), "seek +2": invalid("seek", status), "seek 3": invalid("seek", status),
        "volume +10": volume, "next": invalid("next", status), "previous": invalid("previous", status),
        "jump 2": open(2, then: .stopped), "load": loadX,
      ]
    case .failed:
      return [
        "play": open(1, at: 4, then: .playing), "pause": invalid("pause", status),
        "toggle": open(1, at: 4, then: .playing), "stop": invalid("stop", status),
        "seek +2": invalid("seek", status), "seek 3": invalid("seek", status), "volume +10": volume,
        "next": invalid("next", status), "previous": invalid("previous", status), "jump 2": open(2, then: .stopped),
        "load": loadX,
      ]
    }
  }

  @Test(arguments: [PlaybackStatus.idle, .stopped, .playing, .paused, .ended, .failed(failure)])
  func everyCommandInThisStatus(status: PlaybackStatus) {
    let machine = Self.machine(status)
    let table = Self.expected(status)
    for (label, command) in Self.commands {
      let decision = machine.decide(command)
      if let want = table[label] {
        #expect(decision == want, "\(status.name), \(label)")
        continue
      }
      // Not in the table: a change of the state that needs no output.
      guard case .complete(let next?) = decision else {
        Issue.record("\(status.name), \(label): \(decision) instead of a completed change")
        continue
      }
      switch command {
      case .enqueue: #expect(next.queue == Self.queue + ["x.flac"] && next.status == status, "\(status.name)")
      case .repeatMode: #expect(next.repeatMode == .one && next.queue == machine.state.queue, "\(status.name)")
      case .shuffle: #expect(next.shuffle && next.queue == machine.state.queue, "\(status.name)")
      default: Issue.record("\(status.name), \(label): no expectation")
      }
    }
  }

  /// A live stream (internet radio) differs in three rows: seeks are refused with the reason, `stop` opens it
  /// again (it has no start to go back to), `p` is `previous`; and it is never offered for gapless playback.
  @Test(arguments: [PlaybackStatus.playing, .paused])
  func aLiveStreamRefusesSeeksAndStopsByOpeningItAgain(status: PlaybackStatus) {
    var live = Self.track
    live.isLive = true
    live.frames = 0
    var machine = Self.machine(status)
    var state = machine.state
    state.track = live
    machine = PlayerStateMachine(state: state, shuffleSeed: 1)
    let refused = PlayerStateMachine.CommandAction.reject(.invalidState(command: "seek", state: "in a live stream"))
    #expect(machine.decide(.seek(.relative(2))) == refused)
    #expect(machine.decide(.seek(.absolute(3))) == refused)
    #expect(machine.decide(.stop) == Self.open(1, then: .stopped))
    #expect(machine.previousOrRestart(at: 1_000_000_000_000) == .previous)
    #expect(machine.decide(.next) == Self.machine(status).decide(.next), "the rest as for a file")
  }

  @Test func aRelativeSeekWhilePlayingLandsWithinTheTrackFromWhereTheOutputIs() {
    let step = OutputStep.seekBy(5, duration: 10)
    #expect(step.seekTarget(from: 2) == 7)
    #expect(step.seekTarget(from: 8) == 10)
    #expect(OutputStep.seekBy(-5, duration: 10).seekTarget(from: 2) == 0)
    #expect(OutputStep.seek(3).seekTarget(from: 2) == nil)
  }
}

extension PlayerStateMachine.CommandAction {
  /// The step of a `.perform` decision.
  fileprivate var step: OutputStep {
    guard case .perform(let step) = self else { preconditionFailure("not a step: \(self)") }
    return step
  }
}
