/// Hands one outcome to one awaiting task, exactly once, whichever comes first: the outcome, the
/// continuation, or the task's cancellation.
final class OutcomeWaiter<Value: Sendable, Failure: Error>: Sendable {
  private enum State {
    case empty
    case delivered(Outcome<Value, Failure>)
    case waiting(CheckedContinuation<Outcome<Value, Failure>, Never>)
    case finished
  }

  private let state = Lock(State.empty)

  /// Delivers an outcome; returns `false` (and does nothing) if one was delivered before.
  @discardableResult
  func deliver(_ outcome: Outcome<Value, Failure>) -> Bool {
    let continuation: CheckedContinuation<Outcome<Value, Failure>, Never>?? = state.withLock { state in
      switch state {
      case .empty:
        state = .delivered(outcome)
        return .some(nil)
      case .waiting(let continuation):
        state = .finished
        return continuation
      case .delivered, .finished:
        return nil
      }
    }
    guard let continuation else { return false }
    continuation?.resume(returning: outcome)
    return true
  }

  /// Installs the awaiting task's continuation, resuming it at once if the outcome is already there.
  func wait(_ continuation: CheckedContinuation<Outcome<Value, Failure>, Never>) {
    let delivered: Outcome<Value, Failure>? = state.withLock { state in
      switch state {
      case .empty:
        state = .waiting(continuation)
        return nil
      case .delivered(let outcome):
        state = .finished
        return outcome
      case .waiting, .finished:
        preconditionFailure("an OutcomeWaiter serves one wait")
      }
    }
    if let delivered {
      continuation.resume(returning: delivered)
    }
  }
}
