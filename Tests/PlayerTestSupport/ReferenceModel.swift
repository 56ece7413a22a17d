import PlayerCore

/// A small, independent model of the player and of the simulated output's timing, for the model-based test:
/// after every step the controller's published state must equal what this model predicts.
///
/// Tracks come from ``FakeDecoderFactory``: `long*` paths last 30 s, `missing*` paths do not open.
package struct ReferenceModel {
  // The player, as it should publish.
  package var status = "idle"
  package var queue: [String] = []
  package var index: Int?
  package var volume = 100
  package var muted = false
  /// How many output operations (other than status queries) the last command made.
  package var operations = 0

  // The output, as it really is.
  package var position = 0.0
  package var running = false
  package var now = 0.0
  /// A finished track whose event the controller has not handled yet (it was busy with a command).
  package var pendingEnd = false

  package static let duration = 30.0

  /// A player with nothing loaded.
  package init() {}

  package enum Policy: Equatable {
    case immediate
    case delayed(Double)
    case refused
  }

  /// Time passes with the controller idle (events are handled as they come) or busy with a command (events
  /// wait until the command is done).
  package mutating func advance(_ seconds: Double, busy: Bool) {
    var remaining = seconds
    // The output counts time in whole nanoseconds; sums of these doubles can fall a rounding error short of
    // the end that the output has reached.
    while running, position + remaining >= Self.duration - 1e-9 {
      remaining -= Self.duration - position
      now += Self.duration - position
      position = Self.duration
      running = false
      if busy { pendingEnd = true } else { finishTrack() }
    }
    if running { position += remaining }
    now += remaining
  }

  private mutating func finishTrack() {
    pendingEnd = false
    guard status == "playing", let current = index else { return }
    var next = current + 1
    while next < queue.count, queue[next].hasPrefix("missing") { next += 1 }
    if next < queue.count {
      index = next
      position = 0
      running = true
    } else {
      status = "ended"
    }
  }

  /// Applies a command with the output answering per `policy`; returns the error code it must fail with, if any.
  package mutating func apply(_ command: PlayerCommand, policy: Policy) -> String? {
    operations = 0
    let hasTrack = ["playing", "paused", "stopped"].contains(status)
    var result: String?
    func opened(_ queue: [String], _ index: Int, then: String) -> String? {
      if queue[index].hasPrefix("missing") { return "file-not-found" }
      // The first refusal ends the command: a refused open is never followed by a start.
      operations = then == "playing" && policy != .refused ? 2 : 1
      if case .refused = policy { return "output-failed" }
      if case .delayed(let d) = policy { advance(d, busy: true) }
      // The output replaced its stream: the old one's end, if it came meanwhile, is stale.
      pendingEnd = false
      position = 0
      running = false
      if then == "playing" {
        if case .delayed(let d) = policy { advance(d, busy: true) }
        running = true
      }
      self.queue = queue
      self.index = index
      status = then
      return nil
    }
    func streamStep(_ effect: (inout ReferenceModel) -> Void) -> String? {
      operations = 1
      if case .refused = policy { return "output-failed" }
      if case .delayed(let d) = policy { advance(d, busy: true) }
      effect(&self)
      return nil
    }
    func continuation() -> String { status == "playing" ? "playing" : (status == "paused" ? "paused" : "stopped") }

    switch command {
    case .load(let paths):
      result = opened(paths, 0, then: "stopped")
    case .enqueue(let paths):
      if status == "idle" { result = opened(paths, 0, then: "stopped") } else { queue += paths }
    case .play:
      switch status {
      case "playing": break
      case "paused", "stopped":
        result = streamStep {
          $0.running = true
          $0.status = "playing"
        }
      case "ended": result = opened(queue, 0, then: "playing")
      default: result = "invalid-state"
      }
    case .pause:
      switch status {
      case "playing":
        result = streamStep {
          $0.running = false
          $0.status = "paused"
        }
      case "paused": break
      default: result = "invalid-state"
      }
    case .toggle:
      return apply(status == "playing" ? .pause : .play, policy: policy)
    case .stop:
      switch status {
      case "playing", "paused":
        result = streamStep {
          $0.running = false
          $0.position = 0
          $0.status = "stopped"
        }
      case "stopped": break
      default: result = "invalid-state"
      }
    case .seek(let target):
      guard hasTrack else {
        result = "invalid-state"
        break
      }
      let goal = target.resolve(from: position, duration: Self.duration)
      result = streamStep { $0.position = goal }
    case .volume(let change):
      let level = change.resolve(from: volume)
      result = streamStep { $0.volume = level }
    case .mute(let on):
      let flag = on ?? !muted
      result = streamStep { $0.muted = flag }
    case .next:
      guard hasTrack, let i = index, i + 1 < queue.count else {
        result = "invalid-state"
        break
      }
      result = opened(queue, i + 1, then: continuation())
    case .previous:
      guard hasTrack, let i = index, i > 0 else {
        result = "invalid-state"
        break
      }
      result = opened(queue, i - 1, then: continuation())
    case .jump(let i):
      guard status != "idle", i >= 0, i < queue.count else {
        result = "invalid-state"
        break
      }
      result = opened(queue, i, then: hasTrack ? continuation() : "stopped")
    case .repeatMode, .shuffle:
      // Queue modes have their own tests (QueueModeTests); the model plays the queue once, in order.
      preconditionFailure("the reference model does not take \(command)")
    }
    if pendingEnd { finishTrack() }
    return result
  }
}
