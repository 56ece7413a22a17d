import ArgumentParser
import PlayerCore
import SplayConfig

/// `--on-track CMD` and `--on-state CMD`, shared by `play` and `serve`, over the config's `on-track` and
/// `on-state`; and the hooks they start.
struct HookOptions: ParsableArguments {
  @Option(
    name: .customLong("on-track"),
    help: ArgumentHelp(
      "A shell command run on each new current track: the state as JSON on its input, SPLAY_TITLE, SPLAY_ARTIST, SPLAY_STATUS… set.",
      valueName: "command"))
  var onTrack: String?

  @Option(
    name: .customLong("on-state"),
    help: ArgumentHelp(
      "A shell command run on every confirmed state, one run at a time (the latest state waits).",
      valueName: "command"))
  var onState: String?

  /// Starts the hooks the options or `config` name, following `controller`.
  func start(following controller: PlayerController, config: UserConfig, report: @escaping @Sendable (String) -> Void)
    -> RunningHooks
  {
    let hooks = [
      (onTrack ?? config.onTrack?.value).map { StateHook(.track, command: $0, report: report) },
      (onState ?? config.onState?.value).map { StateHook(.state, command: $0, report: report) },
    ].compactMap { $0 }
    let observation = hooks.isEmpty ? nil : controller.observe { state in for hook in hooks { hook.offer(state) } }
    return RunningHooks(hooks: hooks, observation: observation)
  }
}

/// The hooks of one `play` or `serve`, following its controller until ``finish(within:)``.
struct RunningHooks: Sendable {
  let hooks: [StateHook]
  let observation: StateObservation?

  /// Stops following the controller and gives the runs in progress or waiting up to `seconds` to end, so that
  /// the last states reach them (a scrobbler hears of the last track); a hook that takes longer is left running.
  func finish(within seconds: Double) async {
    observation?.cancel()
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while hooks.contains(where: \.isBusy), ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(10))
    }
  }
}
