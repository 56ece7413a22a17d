import Futures
import PlayerCore

/// What an output reported, in order, and a wait for the first event that matches: a test waits on the event
/// instead of polling a list for it.
final class OutputEventLog: Sendable {
  private struct Waiter {
    let id: Int
    let matches: @Sendable (OutputEvent) -> Bool
    let continuation: CheckedContinuation<OutputEvent?, Never>
    /// Answers nil once the wait is over; cancelled when an event answers first.
    var deadline: Task<Void, Never>?
  }

  private struct State {
    var events: [OutputEvent] = []
    var waiters: [Waiter] = []
    var nextID = 0
  }

  private let state = Lock(State())

  /// Becomes `output`'s event handler.
  init(listeningTo output: any AudioOutput) {
    output.setEventHandler { [self] event in record(event) }
  }

  /// Every event so far.
  var events: [OutputEvent] { state.withLock { $0.events } }

  /// Whether an event so far matches.
  func contains(where matches: (OutputEvent) -> Bool) -> Bool {
    state.withLock { $0.events.contains(where: matches) }
  }

  /// The first event that matches, reported already or within `seconds`; nil when none came by then.
  func first(within seconds: Double, where matches: @escaping @Sendable (OutputEvent) -> Bool) async -> OutputEvent? {
    await withCheckedContinuation { continuation in
      let id = state.withLock { state -> Int? in
        if let event = state.events.first(where: matches) {
          continuation.resume(returning: event)
          return nil
        }
        state.nextID += 1
        state.waiters.append(Waiter(id: state.nextID, matches: matches, continuation: continuation))
        return state.nextID
      }
      guard let id else { return }
      let deadline = Task {
        guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
        let expired = state.withLock { state -> Waiter? in
          guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
          return state.waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: nil)
      }
      // Answered meanwhile: the deadline has nothing left to do.
      let waiting = state.withLock { state -> Bool in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return false }
        state.waiters[index].deadline = deadline
        return true
      }
      if !waiting { deadline.cancel() }
    }
  }

  /// The confirmation of the first `trackFinished`, within `seconds`.
  func trackFinished(within seconds: Double) async -> OutputConfirmation? {
    guard case .trackFinished(let end) = await first(within: seconds, where: { $0.isTrackFinished }) else { return nil }
    return end
  }

  private func record(_ event: OutputEvent) {
    let answered = state.withLock { state -> [Waiter] in
      state.events.append(event)
      var answered: [Waiter] = []
      state.waiters.removeAll { waiter in
        guard waiter.matches(event) else { return false }
        answered.append(waiter)
        return true
      }
      return answered
    }
    for waiter in answered {
      waiter.deadline?.cancel()
      waiter.continuation.resume(returning: event)
    }
  }
}

extension OutputEvent {
  /// Whether this is a `trackFinished`.
  var isTrackFinished: Bool { if case .trackFinished = self { true } else { false } }

  /// Whether this is a `trackAdvanced`.
  var isTrackAdvanced: Bool { if case .trackAdvanced = self { true } else { false } }

  /// Whether this is a `confirmedLate`.
  var isConfirmedLate: Bool { if case .confirmedLate = self { true } else { false } }
}
