import Dispatch
import FoundationEssentials
import Futures
import Glibc
import PlayerCore

/// Brings a served player back after its audio server went away, without waiting for a client's command.
///
/// When the controller publishes `failed(output-lost)`, it asks ``PlayerController/recover()`` again and
/// again, waiting longer after each failure (``Backoff``), until the server answers: the track is then open
/// again, corked at the last confirmed position (the state reads `paused` there), and a client's `play`
/// resumes. It stops trying when something else brought the player back first (a client's `play` or `load`
/// reconnects by itself) or when the server shuts down.
final class OutputReconnector: Sendable {
  /// How long to wait before each attempt: `initial` seconds, multiplied by `factor` after each failure, up to
  /// `maximum`, so that a server that is back soon is found soon and one that stays away costs little.
  struct Backoff: Sendable {
    var initial = 0.25
    var factor = 2.0
    var maximum = 8.0

    /// The wait before the attempt that follows `failures` failed ones.
    func delay(afterFailures failures: Int) -> Double {
      min(maximum, initial * pow(factor, Double(min(failures, 32))))
    }
  }

  private struct State {
    var attempting = false
    var failures = 0
    var stopped = false
    var observation: StateObservation?
  }

  private let controller: PlayerController
  private let backoff: Backoff
  private let report: @Sendable (String) -> Void
  private let state = Lock(State())
  private let queue = DispatchQueue(label: "splay.reconnect")

  /// A reconnector for `controller` that tells `report` (one line each) when the server was lost and when it
  /// is back.
  init(controller: PlayerController, backoff: Backoff = Backoff(), report: @escaping @Sendable (String) -> Void) {
    self.controller = controller
    self.backoff = backoff
    self.report = report
  }

  /// Starts watching the published states.
  func start() {
    let observation = controller.observe { [weak self] published in self?.noticed(published) }
    state.withLock { $0.observation = observation }
  }

  /// Stops watching and makes no further attempt.
  func stop() {
    let observation = state.withLock { state -> StateObservation? in
      state.stopped = true
      defer { state.observation = nil }
      return state.observation
    }
    observation?.cancel()
  }

  /// Runs on the controller's side (an observer) for every published state: starts the attempts on a loss.
  private func noticed(_ published: PlayerState) {
    guard case .failed(.outputLost(let detail)) = published.status else { return }
    let begins = state.withLock { state -> Bool in
      guard !state.stopped, !state.attempting else { return false }
      state.attempting = true
      state.failures = 0
      return true
    }
    guard begins else { return }
    report("lost the audio server (\(detail)); reconnecting in the background")
    schedule(after: backoff.delay(afterFailures: 0))
  }

  private func schedule(after seconds: Double) {
    queue.asyncAfter(deadline: .now() + seconds) { [weak self] in self?.attempt() }
  }

  private func attempt() {
    guard state.withLock({ !$0.stopped }) else { return }
    controller.recover().whenComplete { [weak self] outcome in
      guard let self else { return }
      switch outcome {
      case .success(let recovered):
        self.state.withLock { $0.attempting = false }
        let seconds = clockSeconds(recovered.position.seconds)
        self.report("reconnected to the audio server; paused at \(seconds) s (play resumes)")
      case .failure(.invalidState), .cancelled:
        // Nothing to recover any more: a client's command reconnected first, or the player is shutting down.
        self.state.withLock { $0.attempting = false }
      case .failure:
        let failures = self.state.withLock { state -> Int? in
          guard !state.stopped else { return nil }
          state.failures += 1
          return state.failures
        }
        if let failures { self.schedule(after: self.backoff.delay(afterFailures: failures)) }
      }
    }
  }
}
