import Dispatch
import Futures
import PlayerCore
import PlayerLibrary

/// Carries out the commands of an ``MPRISAction/send(_:)``.
enum MPRISCommands {
  /// Sends `commands` to `controller` one after the other, each once the one before was confirmed (so that
  /// `OpenUri`'s `play` never starts the old queue after a `load` that failed); the future settles with the last
  /// one's outcome or the first failure. A `load` of a folder or playlist is expanded first, on another thread
  /// (walking a large folder takes a good part of a second, which the bus must not wait for).
  static func send(_ commands: [PlayerCommand], to controller: PlayerController) -> Future<PlayerState, PlayerError> {
    guard let first = commands.first else { return .resolved(controller.state) }
    let rest = Array(commands.dropFirst())
    guard case .load(let paths) = first, TrackListExpander.needsExpansion(paths) else {
      return chain(controller.send(first), rest, controller)
    }
    let (future, resolver) = Future<PlayerState, PlayerError>.pending()
    OffLoopQueue.run("splay.expand") {
      switch TrackListExpander().expand(first).command {
      case .success(let command):
        chain(controller.send(command), rest, controller).whenComplete { resolver.settle(with: $0) }
      case .failure(let error): resolver.reject(error)
      }
    }
    return future
  }

  private static func chain(
    _ first: Future<PlayerState, PlayerError>, _ rest: [PlayerCommand], _ controller: PlayerController
  ) -> Future<PlayerState, PlayerError> {
    rest.reduce(first) { sent, command in sent.flatMap { _ in controller.send(command) } }
  }
}
