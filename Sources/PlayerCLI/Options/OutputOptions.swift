import ArgumentParser
import Dispatch
import FoundationEssentials
import Futures
import Glibc
import PlayerCore
import PlayerPulse

/// Which audio output to use; shared by `play`, `run` and `serve`.
enum OutputKind: String, ExpressibleByArgument, CaseIterable {
  case pulse
  case simulated
}

/// The options that choose and configure the audio output.
struct OutputOptions: ParsableArguments {
  @Option(
    name: .long,
    help: "Where audio goes: 'pulse' (a PulseAudio or PipeWire-pulse server) or 'simulated' (no server, virtual time).")
  var output: OutputKind = .pulse

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
      "Seconds the server has to confirm a command before it fails with 'timeout'.", valueName: "seconds"))
  var deadline: Double = 3

  func validate() throws {
    guard deadline.isFinite, deadline > 0, deadline <= 600 else {
      throw ValidationError("--deadline must be between 0 and 600 seconds")
    }
  }

  /// What the PulseAudio output is configured with; nil when another output is chosen.
  var pulseConfiguration: PulseOutput.Configuration? {
    output == .pulse ? PulseOutput.Configuration(server: server, sink: sink) : nil
  }
}
