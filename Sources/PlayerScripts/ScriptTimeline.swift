import Futures
import PlayerCore

/// How time passes for a running script: on the wall clock with a real output, or on a ``VirtualClock`` with
/// the simulated one (where `wait 60` takes no wall time).
public protocol ScriptTimeline: Sendable {
  /// Lets `seconds` pass.
  func pass(seconds: Double, controller: PlayerController) async
  /// Waits for a future to settle (letting virtual time run if the future needs it).
  func settle<T: Sendable>(_ future: Future<T, PlayerError>, controller: PlayerController) async -> Outcome<
    T, PlayerError
  >
  /// Waits until `condition` holds for the confirmed state, or `timeout` seconds pass; returns the state then.
  func wait(
    until condition: @escaping @Sendable (PlayerState) -> Bool, timeout: Double, controller: PlayerController
  ) async -> (held: Bool, state: PlayerState)
}

/// Wall-clock time, for a real audio output.
public struct RealTimeline: ScriptTimeline {
  /// Creates the timeline.
  public init() {}

  /// Sleeps.
  public func pass(seconds: Double, controller: PlayerController) async {
    try? await Task.sleep(for: .nanoseconds(Int64(seconds * 1e9)))
  }

  /// Awaits the future; the controller's deadline guarantees it settles.
  public func settle<T: Sendable>(_ future: Future<T, PlayerError>, controller: PlayerController) async -> Outcome<
    T, PlayerError
  > {
    await future.settled
  }

  /// Watches the published states until one satisfies `condition`.
  public func wait(
    until condition: @escaping @Sendable (PlayerState) -> Bool, timeout: Double, controller: PlayerController
  ) async -> (held: Bool, state: PlayerState) {
    let states = controller.states()
    let watcher = Task { () -> PlayerState? in
      for await state in states where condition(state) { return state }
      return nil
    }
    let timer = Task {
      try? await Task.sleep(for: .nanoseconds(Int64(timeout * 1e9)))
      watcher.cancel()
    }
    let found = await watcher.value
    timer.cancel()
    if let found { return (true, found) }
    let now = controller.state
    return (condition(now), now)
  }
}

/// Virtual time on the simulated output's clock: time moves only between steps, in jumps to the next thing
/// that is due, and the controller is allowed to finish its work at each instant before time moves on.
public struct VirtualTimeline: ScriptTimeline {
  /// The clock the simulated output and the controller's deadlines run on.
  public let clock: VirtualClock

  /// Creates a timeline on `clock`.
  public init(clock: VirtualClock) {
    self.clock = clock
  }

  /// Advances virtual time by `seconds`, stopping at each due event so that the controller reacts in order.
  public func pass(seconds: Double, controller: PlayerController) async {
    let target = clock.now.advanced(by: .nanoseconds(Int64((seconds * 1e9).rounded())))
    await quiesce(controller)
    while let next = clock.nextDeadline, next <= target {
      clock.advance(to: next)
      await quiesce(controller)
    }
    clock.advance(to: target)
    await quiesce(controller)
  }

  /// Lets the controller work, moving virtual time to the next due event only when nothing else can happen.
  /// Every step the controller takes has its deadline on this clock, scheduled when the step starts: a future
  /// still pending with the controller quiescent and nothing due can never settle, which is a bug, and is said
  /// as one (never as a `timeout`).
  public func settle<T: Sendable>(_ future: Future<T, PlayerError>, controller: PlayerController) async -> Outcome<
    T, PlayerError
  > {
    while true {
      await quiesce(controller)
      if let outcome = future.outcome { return outcome }
      guard let next = clock.nextDeadline else { return .failure(Self.stalled) }
      clock.advance(to: next)
    }
  }

  /// What ``settle(_:controller:)`` fails with when nothing can ever happen.
  static let stalled = PlayerError.outputFailed(
    operation: "the step",
    detail: "the simulated player stalled: nothing is due on its clock and the controller waits for nothing "
      + "(a bug in splay)")

  /// Advances virtual time event by event until `condition` holds or `timeout` virtual seconds pass.
  public func wait(
    until condition: @escaping @Sendable (PlayerState) -> Bool, timeout: Double, controller: PlayerController
  ) async -> (held: Bool, state: PlayerState) {
    let deadline = clock.now.advanced(by: .nanoseconds(Int64((timeout * 1e9).rounded())))
    while true {
      await quiesce(controller)
      let state = controller.state
      if condition(state) { return (true, state) }
      if clock.now >= deadline { return (false, state) }
      let next = clock.nextDeadline.map { min($0, deadline) } ?? deadline
      clock.advance(to: next)
    }
  }

  /// Waits until the controller has caught up: it is idle, or waits for an answer of the output that only
  /// moving time can bring. The controller says so itself (``PlayerController/quiescence()``).
  private func quiesce(_ controller: PlayerController) async {
    _ = await controller.quiescence().settled
  }
}
