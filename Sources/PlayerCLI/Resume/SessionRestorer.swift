import FoundationEssentials
import Futures
import PlayerCore
import PlayerLibrary

/// Brings a saved session back into a controller, as the server confirms it: the volume, the queue with the
/// current track paused at its position, then repeat and shuffle. Files that are gone are dropped, and a current
/// track whose file changed starts from 0; each is said in one line.
enum SessionRestorer {
  /// What restoring did: whether a session came back (then the file is written again on exit even without a
  /// change), the state changes are counted from, and why a session that was there could not come back.
  struct Outcome {
    var restored: Bool
    var baseline: PlayerState
    /// The output's or the file's error when a saved session could not be restored; nil otherwise.
    var failure: PlayerError? = nil
  }

  /// Reads `file` and restores what it holds into `controller`; `report` hears each line to print.
  static func restore(
    from file: SessionFile, into controller: PlayerController, report: @Sendable (String) -> Void
  ) async -> Outcome {
    switch file.read() {
    case .none: return Outcome(restored: false, baseline: controller.state)
    case .setAside(let message):
      report(message)
      return Outcome(restored: false, baseline: controller.state)
    case .session(let session):
      let failure = await restore(session, into: controller, name: file.path, report: report)
      return Outcome(restored: failure == nil, baseline: controller.state, failure: failure)
    }
  }

  /// Restores `session` (read from `name`); the reason when it could not be (``PlayerError/noTracks(path:)``
  /// when none of its files is left).
  static func restore(
    _ session: SavedSession, into controller: PlayerController, name: String, report: @Sendable (String) -> Void
  ) async -> PlayerError? {
    let kept = session.queue.indices.filter {
      StreamURL.isStream(session.queue[$0]) || FileManager.default.fileExists(atPath: session.queue[$0])
    }
    if kept.count < session.queue.count {
      let gone = session.queue.indices.filter { !kept.contains($0) }.map { session.queue[$0] }
      let named = gone.prefix(3).joined(separator: ", ") + (gone.count > 3 ? " and \(gone.count - 3) more" : "")
      report("\(name): \(gone.count == 1 ? "a saved track is" : "\(gone.count) saved tracks are") gone: \(named)")
    }
    guard !kept.isEmpty else { return .noTracks(path: name) }
    let queue = kept.map { session.queue[$0] }
    // The current track, or the first one kept after it when its file is gone (from its start).
    let current = session.index ?? 0
    let index = kept.firstIndex { $0 >= current } ?? 0
    // A stream starts again from where it is now: a live one cannot seek, and it went on without us.
    var seconds = kept[index] == current && !StreamURL.isStream(queue[index]) ? session.position : 0
    if seconds > 0, let saved = session.file, FileStamp(track: queue[index]) != saved {
      report("\(queue[index]): changed since the session was saved; it starts from 0")
      seconds = 0
    }
    // The volume first: the stream is then opened at it, with no moment at another level.
    _ = await controller.setVolume(session.volume).settled
    switch await controller.restore(queue: queue, index: index, at: seconds).settled {
    case .success: break
    case .failure(let error): return error
    case .cancelled: return .cancelled
    }
    _ = await controller.send(.repeatMode(RepeatMode(rawValue: session.repeatMode) ?? .off)).settled
    _ = await controller.send(.shuffle(session.shuffle)).settled
    return nil
  }
}
