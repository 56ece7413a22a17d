import ArgumentParser
import PlayerCore
import PlayerLibrary
import SplayConfig

extension ReplayGainMode: ExpressibleByArgument {}

/// `--replaygain` and `--replaygain-preamp`, shared by `play`, `run` and `serve`; the config file's
/// `replaygain*` keys fill in what they leave unset.
struct ReplayGainOptions: ParsableArguments {
  @Option(
    name: .customLong("replaygain"),
    help: ArgumentHelp(
      "Play at the files' ReplayGain: 'off' (the default), 'track', 'album', or 'auto' (album gain while the queue plays in order, track gain shuffled).",
      valueName: "mode"))
  var mode: ReplayGainMode?

  @Option(
    name: .customLong("replaygain-preamp"), parsing: .unconditional,
    help: ArgumentHelp("Decibels added to a tagged ReplayGain, -15 to 15 (default 0).", valueName: "dB"))
  var preamp: Double?

  func validate() throws {
    if let preamp, !(preamp.isFinite && abs(preamp) <= 15) {
      throw ValidationError("--replaygain-preamp must be a number of decibels from -15 to 15")
    }
  }

  /// The policy: each option given, else the config file's key, else splay's default (off, 0 dB, untagged
  /// files at 0 dB, peaks kept at full scale).
  func policy(with config: UserConfig) -> ReplayGainPolicy {
    ReplayGainPolicy(
      mode: mode ?? config.replayGain.flatMap { ReplayGainMode(rawValue: $0.value) } ?? .off,
      preamp: preamp ?? config.replayGainPreamp?.value ?? 0, untagged: config.replayGainUntagged?.value ?? 0,
      preventsClipping: !(config.replayGainClip?.value ?? false))
  }
}
