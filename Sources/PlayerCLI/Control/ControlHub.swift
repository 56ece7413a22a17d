import Futures
import PlayerCore

/// What every connection of one control server shares: the controller, the client count, the quit request.
final class ControlHub: Sendable {
  /// Keeps one client's subscription to published states.
  struct Subscription: Sendable {
    let observation: StateObservation
    func cancel() { observation.cancel() }
  }

  let controller: PlayerController
  let maximumClients: Int
  private let clients = Lock(0)
  private let onQuit: @Sendable () -> Void

  init(controller: PlayerController, maximumClients: Int, onQuit: @escaping @Sendable () -> Void) {
    self.controller = controller
    self.maximumClients = maximumClients
    self.onQuit = onQuit
  }

  /// Counts a new client; false when the server is full (the client is then told and closed).
  func clientJoined() -> Bool {
    clients.withLock { count in
      guard count < maximumClients else { return false }
      count += 1
      return true
    }
  }

  /// Counts a client leaving.
  func clientLeft() {
    clients.withLock { $0 = max(0, $0 - 1) }
  }

  /// Subscribes `body` to every published state, in publication order.
  func subscribe(_ body: @escaping @Sendable (PlayerState) -> Void) -> Subscription {
    Subscription(observation: controller.observe(body))
  }

  /// A client asked the server to stop.
  func requestQuit() { onQuit() }
}
