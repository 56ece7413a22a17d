import Futures
import PlayerCore

/// Waits for a ``TriggerPoint`` on confirmed states: a position by asking the output for it as the audio clock
/// nears it, an event by watching the published states. It gives up, saying why, as soon as playback cannot
/// reach the point without another command (paused, stopped, ended, another track).
struct TriggerWatch: Sendable {
  /// Why a point cannot be reached, in one line.
  struct Unreached: Error, Equatable {
    var message: String
  }

  let controller: PlayerController
  let timeline: any ScriptTimeline

  /// The confirmed state once `point` is reached.
  func reach(_ point: TriggerPoint) async -> Result<PlayerState, Unreached> {
    switch point {
    case .position, .beforeEnd: await reachPosition(point)
    case .track(let number): await reachEvent(point) { $0.index == number - 1 && $0.status.hasOpenTrack }
    case .status(let name): await reachEvent(point) { $0.status.name == name }
    }
  }

  /// The position in seconds that a position point stands for in `state`'s track; nil for an event, or for
  /// `end-…` in a live stream.
  static func goal(of point: TriggerPoint, in state: PlayerState) -> Double? {
    switch point {
    case .position(let seconds): seconds
    case .beforeEnd(let offset): state.track.flatMap { $0.isLive ? nil : max(0, $0.duration - offset) }
    case .track, .status: nil
    }
  }

  /// Waits until the current track's confirmed position reaches the point: sleeps, on the timeline, for as long
  /// as the audio needs to get there, then asks the output where it is, until it has got there. On virtual time
  /// that is the very instant.
  private func reachPosition(_ point: TriggerPoint) async -> Result<PlayerState, Unreached> {
    var state = await confirmed()
    guard state.status.hasOpenTrack, let track = state.track, let index = state.index else {
      return .failure(Unreached(message: "no track is open (confirmed \(state.status.name))"))
    }
    guard let goal = Self.goal(of: point, in: state) else {
      return .failure(Unreached(message: "a live stream has no end"))
    }
    // A track repeated (`repeat one`) starts over without reaching a point past its end.
    guard track.isLive || goal <= track.duration else {
      return .failure(Unreached(message: "the track is \(formatSeconds(track.duration)) s long"))
    }
    var previous = state.position.seconds
    while true {
      guard state.index == index, state.track?.path == track.path else {
        let now = state.index.map { "track \($0 + 1)" } ?? state.status.name
        return .failure(Unreached(message: "the track changed to \(now) short of \(formatSeconds(goal)) s"))
      }
      guard state.position.seconds >= previous - InvariantWatch.tolerance else {
        return .failure(
          Unreached(message: "the track started over at \(formatSeconds(state.position.seconds)) s short of it"))
      }
      previous = state.position.seconds
      // A microsecond of slack: virtual time reaches the target exactly, give or take a rounding.
      if state.position.seconds >= goal - 1e-6 { return .success(state) }
      guard state.status == .playing else {
        return .failure(
          Unreached(
            message: "confirmed \(state.status.name) at \(formatSeconds(state.position.seconds)) s, short of "
              + "\(formatSeconds(goal)) s"))
      }
      // Half the way at a time down to 0.1 s, then the rest: a confirmation that lags (a server starved of CPU
      // answers from a stale clock) costs at most half the wait, not all of it again. At most a day at a time: a
      // damaged file may claim a length no clock can sleep.
      // A microsecond at least: virtual time moves in nanoseconds, a position in frames.
      let remaining = max(goal - state.position.seconds, 0.000_001)
      await timeline.pass(seconds: min(remaining, max(0.1, remaining / 2), 86_400), controller: controller)
      state = await confirmed()
    }
  }

  /// Waits until a published state satisfies `condition`, while playback goes on (status playing).
  private func reachEvent(
    _ point: TriggerPoint, _ condition: @escaping @Sendable (PlayerState) -> Bool
  ) async -> Result<PlayerState, Unreached> {
    let now = controller.state
    if !condition(now), let never = Self.never(point, in: now) { return .failure(Unreached(message: never)) }
    // No deadline of its own: it ends when the condition holds or playback stops; about 116 days of virtual time.
    let result = await timeline.wait(
      until: { condition($0) || $0.status != .playing }, timeout: 10_000_000, controller: controller)
    if condition(result.state) { return .success(result.state) }
    let at = result.state.index.map { ", track \($0 + 1)" } ?? ""
    return .failure(Unreached(message: "playback stopped short of it: confirmed \(result.state.status.name)\(at)"))
  }

  /// Why `point` can never come from `state` while the queue plays on, or nil.
  private static func never(_ point: TriggerPoint, in state: PlayerState) -> String? {
    switch point {
    case .status("ended") where state.repeatMode != .off:
      return "the queue repeats (repeat \(state.repeatMode.rawValue)): it never ends"
    case .track(let number) where number > state.queueLength:
      return "the queue has \(state.queueLength) track" + (state.queueLength == 1 ? "" : "s")
    case .track(let number) where state.repeatMode == .one && state.index != number - 1:
      return "the track repeats (repeat one): track \(number) never comes"
    default:
      return nil
    }
  }

  /// The state as the output confirms it now (the last published one when no track is open).
  private func confirmed() async -> PlayerState {
    let state = controller.state
    guard state.status.hasOpenTrack else { return state }
    if case .success(let fresh) = await timeline.settle(controller.refresh(), controller: controller) { return fresh }
    return controller.state
  }
}
