import ArgumentParser
import Dispatch
import FoundationEssentials
import Futures
import Glibc
import PlayerCore
import PlayerPulse
import SplayConfig

/// Which audio output to use; shared by `play`, `run` and `serve`.
enum OutputKind: String, ExpressibleByArgument, CaseIterable {
  case pulse
  case simulated
}

/// The options that choose and configure the audio output; what they leave unset comes from the config file
/// (``settings(with:)``).
struct OutputOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Where audio goes: 'pulse' (a PulseAudio or PipeWire-pulse server; the default) or 'simulated' (no server, virtual time).",
      valueName: "output"))
  var output: OutputKind?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The PulseAudio server to use (default: $PULSE_SERVER, then the user's server).", valueName: "address"))
  var server: String?

  @Option(
    name: .long, help: ArgumentHelp("The sink to play to (default: the server's default sink).", valueName: "name"))
  var sink: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Seconds the server has to confirm a command before it fails with 'timeout' (default 3).", valueName: "seconds"))
  var deadline: Double?

  func validate() throws {
    if let deadline, !(deadline.isFinite && deadline > 0 && deadline <= 600) {
      throw ValidationError("--deadline must be between 0 and 600 seconds")
    }
  }

  /// The output settings: each option given, else the config file's, else splay's default.
  func settings(with config: UserConfig) -> OutputSettings {
    OutputSettings(
      output: output ?? config.output.flatMap { OutputKind(rawValue: $0.value) } ?? .pulse,
      server: server ?? config.server?.value, sink: sink ?? config.sink?.value,
      deadline: deadline ?? config.deadline?.value ?? OutputSettings.defaultDeadline)
  }
}

/// The audio output a command runs with, decided from its options and the config file.
struct OutputSettings: Equatable {
  /// The deadline when neither the command line nor the config file sets one.
  static let defaultDeadline = 3.0

  var output: OutputKind
  var server: String?
  var sink: String?
  var deadline: Double

  /// What the PulseAudio output is configured with; nil when another output is chosen.
  var pulseConfiguration: PulseOutput.Configuration? {
    output == .pulse ? PulseOutput.Configuration(server: server, sink: sink) : nil
  }
}
