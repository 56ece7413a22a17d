import Futures
import PlayerCore
import PlayerScripts
import Synchronization

/// A controller on a simulated output and a virtual clock, with every published state recorded.
package final class Harness: Sendable {
  package let clock = VirtualClock()
  package let output: SimulatedOutput
  package let controller: PlayerController
  package let timeline: VirtualTimeline
  private let published = Locked<[PlayerState]>([])
  private let observation: StateObservation

  /// A harness whose controller opens files with `decoders` and gives up on a command after `deadline`.
  package init(deadline: Duration = .seconds(3), decoders: any AudioDecoderFactory = FakeDecoderFactory()) {
    output = SimulatedOutput(clock: clock)
    controller = PlayerController(
      output: output, decoders: decoders,
      configuration: ControllerConfiguration(deadline: deadline, clock: clock))
    timeline = VirtualTimeline(clock: clock)
    let published = self.published
    observation = controller.observe { state in published.withLock { $0.append(state) } }
  }

  /// Every state published so far.
  package var states: [PlayerState] { published.withLock { $0 } }

  /// Sends a command and waits, in virtual time, for its outcome.
  @discardableResult
  package func run(_ command: PlayerCommand) async -> Outcome<PlayerState, PlayerError> {
    await timeline.settle(controller.send(command), controller: controller)
  }

  /// Lets `seconds` of virtual time pass.
  package func pass(_ seconds: Double) async {
    await timeline.pass(seconds: seconds, controller: controller)
  }

  /// Waits until the controller has nothing in flight.
  package func idle() async {
    await timeline.pass(seconds: 0, controller: controller)
  }

  deinit { observation.cancel() }
}

extension Outcome {
  package var succeeded: Bool { if case .success = self { true } else { false } }
  package var failureCode: String? {
    if case .failure(let error) = self, let error = error as? PlayerError { return error.code }
    return nil
  }
}

/// A value behind a lock, shareable between closures (a `Lock` itself cannot be captured: it is not copyable).
package final class Locked<Value: Sendable>: Sendable {
  private let mutex: Lock<Value>
  package init(_ value: Value) { mutex = Lock(value) }
  package func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
