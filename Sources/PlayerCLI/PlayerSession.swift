import Futures
import PlayerCore
import PlayerDecoding
import PlayerLibrary
import PlayerPulse
import PlayerScripts
import SplayConsole

/// The composition root: where `play`, `run` and `serve` put an output, the decoders, a controller and the
/// timeline scripts wait on together, as the command line chose them.
struct PlayerSession: Sendable {
  let controller: PlayerController
  let timeline: any ScriptTimeline
  /// The simulated output, when it was chosen (scripts move its virtual clock).
  let simulated: SimulatedOutput?
  /// The PulseAudio output, when the session plays through one.
  let pulse: PulseOutput?
  /// How the session opens tracks (ReplayGain included).
  let decoders: any AudioDecoderFactory

  /// What opens the files splay plays: every format the standard decoders know, and the tracks of cue sheets.
  static func fileDecoders(streamTimeout: Double = OutputSettings.defaultDeadline) -> any AudioDecoderFactory {
    CueTrackDecoderFactory(opening: StandardDecoderFactory(streamTimeout: streamTimeout))
  }

  /// Builds the output `options` name, a controller on it and its timeline; `answers` is where the controller
  /// takes up the output's answers (``ControllerConfiguration/answers``; its own queue by default). `pulse` is
  /// an output already made for ``OutputSettings/pulseConfiguration`` (``EarlyStart``); otherwise one is made here.
  /// The controller opens files through `decoders`, with `replayGain` applied unless it is off. `onNotice` hears
  /// what changes no state (a stream reconnecting): stderr by default.
  init(
    _ options: OutputSettings, decoders given: (any AudioDecoderFactory)? = nil,
    replayGain: ReplayGainPolicy = ReplayGainPolicy(), answers: ExecutionContext? = nil, pulse: PulseOutput? = nil,
    onSkipped: (@Sendable (PlayerError) -> Void)? = nil,
    onNotice: @escaping @Sendable (String) -> Void = { Console.error($0) },
    onUnderflow: (@Sendable () -> Void)? = nil
  ) {
    // A stream that does not answer fails within the command's deadline.
    let opener = given ?? Self.fileDecoders(streamTimeout: options.deadline)
    let decoders =
      replayGain.mode == .off
      ? opener
      : ReplayGainDecoderFactory(opening: opener, policy: replayGain) { GainedDecoder($0, gain: $1) }
    self.decoders = decoders
    let deadline = Duration.nanoseconds(Int64(options.deadline * 1e9))
    switch options.output {
    case .pulse:
      let output =
        pulse ?? PulseOutput(configuration: PulseOutput.Configuration(server: options.server, sink: options.sink))
      output.connectEarly()
      var configuration = ControllerConfiguration(
        deadline: deadline, onTrackSkipped: onSkipped, onNotice: onNotice, answers: answers)
      configuration.onUnderflow = onUnderflow
      controller = PlayerController(output: output, decoders: decoders, configuration: configuration)
      timeline = RealTimeline()
      simulated = nil
      self.pulse = output
    case .simulated:
      let clock = VirtualClock()
      let output = SimulatedOutput(clock: clock)
      var configuration = ControllerConfiguration(
        deadline: deadline, clock: clock, onTrackSkipped: onSkipped, onNotice: onNotice, answers: answers)
      configuration.onUnderflow = onUnderflow
      controller = PlayerController(output: output, decoders: decoders, configuration: configuration)
      timeline = VirtualTimeline(clock: clock)
      simulated = output
      self.pulse = nil
    }
  }
}
