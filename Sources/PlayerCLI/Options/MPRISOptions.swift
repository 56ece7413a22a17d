import ArgumentParser
import PlayerCore
import SplayConfig

/// `--mpris`/`--no-mpris`, shared by `play` and `serve`, and the start and stop of the MPRIS service they run.
struct MPRISOptions: ParsableArguments {
  @Flag(
    inversion: .prefixedNo,
    help: "Offer MPRIS control (media keys, playerctl, desktop widgets) on the D-Bus session bus (default: on).")
  var mpris: Bool?

  /// Whether MPRIS is offered: the flag given, else the config file's `mpris`, else yes.
  func enabled(with config: UserConfig) -> Bool {
    mpris ?? config.mpris?.value ?? true
  }

  /// Starts MPRIS for `session` when ``enabled(with:)``. Without a session bus it ends on its own, and silently:
  /// playing needs no bus. `onQuit` runs when a client calls `Quit`.
  func start(
    for session: PlayerSession, config: UserConfig, onQuit: @escaping @Sendable () -> Void
  ) -> MPRISService? {
    guard enabled(with: config) else { return nil }
    let now: @Sendable () -> UInt64
    if let clock = session.simulated?.clock {
      now = { clock.nanoseconds }
    } else {
      now = { TerminalView.monotonicNow() }
    }
    return MPRISService.start(controller: session.controller, now: now, onQuit: onQuit)
  }
}
