import ArgumentParser
import PlayerCore

/// `--no-mpris`, shared by `play` and `serve`, and the start and stop of the MPRIS service they run.
struct MPRISOptions: ParsableArguments {
  @Flag(
    name: .customLong("no-mpris"),
    help: "Do not offer MPRIS control (media keys, playerctl, desktop widgets) on the D-Bus session bus.")
  var disabled = false

  /// Starts MPRIS for `session` unless `--no-mpris` was given. Without a session bus it ends on its own, and
  /// silently: playing needs no bus. `onQuit` runs when a client calls `Quit`.
  func start(for session: PlayerSession, onQuit: @escaping @Sendable () -> Void) -> MPRISService? {
    guard !disabled else { return nil }
    let now: @Sendable () -> UInt64
    if let clock = session.simulated?.clock {
      now = { clock.nanoseconds }
    } else {
      now = { TerminalView.monotonicNow() }
    }
    return MPRISService.start(controller: session.controller, now: now, onQuit: onQuit)
  }
}
