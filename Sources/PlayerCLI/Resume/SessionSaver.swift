import Dispatch
import Futures
import PlayerCore

/// Keeps a player's session in its ``SessionFile`` as the server confirms changes worth keeping
/// (``SavedSession/worthSaving(_:after:)``): on its own queue, the latest state only, so that a burst of
/// changes costs one write and the controller never waits for the disk.
final class SessionSaver: Sendable {
  private struct Pending {
    /// The state last taken as worth saving, to compare the next with.
    var last: PlayerState
    /// The state waiting to be written.
    var unwritten: PlayerState?
    /// Whether a write was queued and has not taken `unwritten` yet.
    var queued = false
    /// A failure was reported already: the next ones are not.
    var reported = false
    /// Something worth saving changed since the baseline.
    var changed = false
    /// A saved session that could not be restored (its server was not up yet): kept until the queue changes,
    /// so that a volume step on the empty player does not replace it.
    var protectedQueue: UInt64?
    var finished = false
  }

  private let file: SessionFile
  private let queue = DispatchQueue(label: "splay.session.save")
  private let pending: Lock<Pending>
  private let report: @Sendable (String) -> Void
  private let observation = Lock<StateObservation?>(nil)

  private let restored: Bool

  /// A saver that counts changes from `baseline`: the session `restored` from the file, or the start when
  /// none came back; a session that was there but `failed` to come back stays in the file until the queue
  /// changes. `report` hears the first failure to write.
  init(
    file: SessionFile, baseline: PlayerState, restored: Bool, failed: Bool = false,
    report: @escaping @Sendable (String) -> Void
  ) {
    self.file = file
    var start = Pending(last: baseline)
    if failed { start.protectedQueue = baseline.queueRevision }
    pending = Lock(start)
    self.restored = restored
    self.report = report
  }

  /// Follows `controller`'s published states from now on.
  func start(following controller: PlayerController) {
    let subscription = controller.observe { [weak self] state in self?.consider(state) }
    observation.withLock { $0 = subscription }
  }

  private func consider(_ state: PlayerState) {
    let schedule = pending.withLock { pending -> Bool in
      guard !pending.finished, SavedSession.worthSaving(state, after: pending.last) else { return false }
      if let protected = pending.protectedQueue {
        guard state.queueRevision != protected else { return false }
        pending.protectedQueue = nil
      }
      pending.last = state
      pending.unwritten = state
      pending.changed = true
      defer { pending.queued = true }
      return !pending.queued
    }
    if schedule { queue.async { self.writeLatest() } }
  }

  private func writeLatest() {
    let state = pending.withLock { pending -> PlayerState? in
      pending.queued = false
      defer { pending.unwritten = nil }
      // After ``finish(with:)``: its state is the last word, and a state published meanwhile must not follow it.
      return pending.finished ? nil : pending.unwritten
    }
    if let state { write(state) }
  }

  private func write(_ state: PlayerState) {
    guard let failure = file.write(SavedSession(state)) else { return }
    let first = pending.withLock { pending in
      defer { pending.reported = true }
      return !pending.reported
    }
    if first { report("cannot keep the session: \(failure)") }
  }

  /// Stops following the controller and writes `state` (the one to exit with, its position fresh from the
  /// server) once the writes before it are done; not when nothing was restored and nothing changed.
  func finish(with state: PlayerState) {
    observation.withLock { $0?.cancel() }
    let changed = pending.withLock { pending in
      pending.finished = true
      return pending.changed
    }
    guard restored || changed else { return queue.sync {} }
    queue.sync { write(state) }
  }
}
