import ArgumentParser
import Dispatch
import FoundationEssentials
import Futures
import Glibc
import PlayerCore

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

  /// Builds the output, a controller on it and the timeline scripts wait on; `answers` is where the controller
  /// takes up the output's answers (``ControllerConfiguration/answers``; its own queue by default). `pulse` is
  /// an output already made for ``pulseConfiguration`` (``EarlyStart``); otherwise one is made here.
  func makeSession(
    decoders: any AudioDecoderFactory = StandardDecoderFactory(), answers: ExecutionContext? = nil,
    pulse: PulseOutput? = nil, onSkipped: (@Sendable (PlayerError) -> Void)? = nil
  ) -> PlayerSession {
    let deadline = Duration.nanoseconds(Int64(self.deadline * 1e9))
    switch output {
    case .pulse:
      let output = pulse ?? PulseOutput(configuration: PulseOutput.Configuration(server: server, sink: sink))
      output.connectEarly()
      let controller = PlayerController(
        output: output, decoders: decoders,
        configuration: ControllerConfiguration(deadline: deadline, onTrackSkipped: onSkipped, answers: answers))
      return PlayerSession(controller: controller, timeline: RealTimeline(), simulated: nil)
    case .simulated:
      let clock = VirtualClock()
      let output = SimulatedOutput(clock: clock)
      let controller = PlayerController(
        output: output, decoders: decoders,
        configuration: ControllerConfiguration(
          deadline: deadline, clock: clock, onTrackSkipped: onSkipped, answers: answers))
      return PlayerSession(controller: controller, timeline: VirtualTimeline(clock: clock), simulated: output)
    }
  }
}

/// A controller with its output and the timeline that moves time for it.
struct PlayerSession: Sendable {
  let controller: PlayerController
  let timeline: any ScriptTimeline
  let simulated: SimulatedOutput?
}
