import Dispatch
import Futures
import PlayerCore
import Synchronization

/// Issue 4's first performance row: what one command costs through ``PlayerController`` when the output
/// answers at once, beside the floor of one bare dispatch-queue round trip.
///
/// Every loop returns a checksum of what the settled futures reported, so that a command that failed, or a
/// loop the optimizer shortened, shows up as a wrong total rather than as a fast figure.
public enum CommandWorkload {
  /// Commands (or round trips) per measured batch: enough that the clock's own cost disappears.
  public static let batch = 1_000

  /// The two volumes the loops alternate between, so that every command changes the state.
  static let volumes = (40, 60)

  /// The checksum a batch of `count` commands (or round trips) must return.
  public static func expectedChecksum(count: Int) -> Int {
    (count / 2) * (volumes.0 + volumes.1) + (count % 2) * volumes.0
  }

  /// A controller on a `SimulatedOutput` whose acknowledgements are immediate, with a synthetic track
  /// loaded, as `splay run --output simulated` would have it.
  public static func loadedController() async -> PlayerController {
    let clock = VirtualClock()
    let controller = PlayerController(
      output: SimulatedOutput(clock: clock), decoders: SyntheticDecoderFactory(),
      configuration: ControllerConfiguration(deadline: .seconds(3), clock: clock))
    let loaded = await controller.load(["synthetic-30s.flac"]).settled
    guard case .success(let state) = loaded, state.status.hasOpenTrack else {
      fatalError("the synthetic track did not load: \(loaded)")
    }
    return controller
  }

  /// Sends `count` volume commands one after the other, each awaited (`await future.settled`) before the
  /// next is sent: the latency a caller sees, queue hops and the awaiting task's wake-up included.
  ///
  /// - Returns: the sum of the volumes the confirmed states reported.
  public static func awaitingEach(_ controller: PlayerController, count: Int) async -> Int {
    var total = 0
    for index in 0..<count {
      let level = index % 2 == 0 ? volumes.0 : volumes.1
      if case .success(let state) = await controller.send(.volume(.absolute(level))).settled {
        total += state.volume
      }
    }
    return total
  }

  /// Sends `count` volume commands without waiting, then awaits the last: the controller's throughput when
  /// a script or a socket client pipelines its commands, with one task wake-up for the whole batch.
  ///
  /// - Returns: the sum of the volumes the confirmed states reported (the futures settle in order, so every
  ///   one has settled once the last has).
  public static func pipelined(_ controller: PlayerController, count: Int) async -> Int {
    var futures: [Future<PlayerState, PlayerError>] = []
    futures.reserveCapacity(count)
    for index in 0..<count {
      futures.append(controller.send(.volume(.absolute(index % 2 == 0 ? volumes.0 : volumes.1))))
    }
    _ = await futures.last?.settled
    var total = 0
    for future in futures {
      if case .success(let state) = future.outcome { total += state.volume }
    }
    return total
  }

  /// The floor: `count` round trips from the awaiting task to a serial dispatch queue and back, the least a
  /// command that runs on the controller's queue can cost a caller who awaits it. A command whose output
  /// answers in the call (the simulated output here) makes exactly one such hop.
  ///
  /// - Returns: the same checksum as the command loops, computed on the queue.
  public static func dispatchRoundTrips(on queue: DispatchQueue, count: Int) async -> Int {
    var total = 0
    for index in 0..<count {
      total += await withCheckedContinuation { continuation in
        queue.async { continuation.resume(returning: index % 2 == 0 ? volumes.0 : volumes.1) }
      }
    }
    return total
  }

  /// The floor of ``pipelined(_:count:)``: `count` jobs handed to a serial dispatch queue without waiting, each
  /// adding to a locked total (the controller takes its lock on every job too), the last one waking the
  /// awaiting task. A pipelined command costs the controller at least one such job, for the output's answer.
  ///
  /// - Returns: the same checksum as the command loops, computed on the queue.
  public static func dispatchPipelined(on queue: DispatchQueue, count: Int) async -> Int {
    let total = Tally()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      for index in 0..<count {
        let level = index % 2 == 0 ? volumes.0 : volumes.1
        queue.async {
          total.add(level)
          if index == count - 1 { continuation.resume() }
        }
      }
    }
    return total.value
  }

  /// Shuts `controller` down and waits until it has closed its output.
  public static func shutdown(_ controller: PlayerController) async {
    _ = await controller.shutdown().settled
  }
}

/// A locked running total that escaping closures can share (a `Mutex` itself cannot be captured).
private final class Tally: Sendable {
  private let total = Mutex(0)

  func add(_ amount: Int) { total.withLock { $0 += amount } }

  var value: Int { total.withLock { $0 } }
}
