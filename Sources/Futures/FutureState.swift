/// The lock-protected state of a ``Future``, and every transition it can make.
///
/// The transitions are pure (no user code, no allocation of user objects, no release of anything a user
/// deinitializer could observe): they return what the caller must do once the lock is released, in the
/// style of swift-nio's state machines. That is what makes "no user code runs under the lock" easy to check.
///
/// ```
///   pending ──settle──▶ settling ──last callback done──▶ settled
///                          ▲                               │
///                          └──── callback registered ──────┘
/// ```
/// `settling` means "some thread's drainer is running this future's callbacks": callbacks registered
/// meanwhile are appended and run by that drainer, so a future's callbacks never run concurrently and
/// always start in registration order.
@usableFromInline
enum FutureState<Value: Sendable, Failure: Error> {
  @usableFromInline
  typealias Callbacks = CallbackList<Value, Failure>

  /// Not settled. `demand` counts the derived futures and awaiting tasks waiting on this future;
  /// `upstream` is what this future itself waits on, for cancellation propagation.
  case pending(Callbacks, upstream: (any DemandSource)?, demand: UInt32)
  /// Settled, with callbacks being run by a drainer.
  case settling(Outcome<Value, Failure>, Callbacks)
  /// Settled, with no callback left to run.
  case settled(Outcome<Value, Failure>)

  /// What the caller must do with callbacks once the lock is released.
  @usableFromInline
  enum Delivery {
    /// Nothing to run.
    case nothing
    /// A drainer is running on this thread: push the future onto its stack.
    case schedule
    /// No drainer is running here: become one, and drain this future.
    case drain
  }

  /// The result of an attempt to settle.
  @usableFromInline
  enum Settlement {
    /// The future had already settled; nothing changed.
    case lost
    /// This call settled the future. `upstream` is released from the state and handed over so that
    /// a cancellation can withdraw from it.
    case won(Delivery, upstream: (any DemandSource)?)
  }

  /// The outcome, or `nil` while pending.
  @inlinable
  var outcome: Outcome<Value, Failure>? {
    switch self {
    case .pending: return nil
    case .settling(let outcome, _): return outcome
    case .settled(let outcome): return outcome
    }
  }

  /// Settles with `outcome` if still pending.
  @inlinable
  mutating func settle(_ outcome: Outcome<Value, Failure>) -> Settlement {
    guard case .pending(let callbacks, let upstream, _) = self else { return .lost }
    if callbacks.isEmpty {
      self = .settled(outcome)
      return .won(.nothing, upstream: upstream)
    }
    self = .settling(outcome, callbacks)
    return .won(DrainStack.isDrainingHere ? .schedule : .drain, upstream: upstream)
  }

  /// Adds a callback; `addingDemand` also counts the caller as waiting on this future.
  @inlinable
  mutating func register(_ callback: FutureCallback<Value, Failure>, addingDemand: Bool) -> Delivery {
    switch self {
    case .pending(var callbacks, let upstream, var demand):
      // Park a placeholder first so that `callbacks` is uniquely referenced and grows in place.
      self = .settled(.cancelled)
      callbacks.append(callback)
      if addingDemand { demand += 1 }
      self = .pending(callbacks, upstream: upstream, demand: demand)
      return .nothing
    case .settling(let outcome, var callbacks):
      self = .settled(outcome)
      callbacks.append(callback)
      self = .settling(outcome, callbacks)
      return .nothing
    case .settled(let outcome):
      self = .settling(outcome, Callbacks(callback))
      return DrainStack.isDrainingHere ? .schedule : .drain
    }
  }

  /// Claims a settled future for a callback that the caller runs itself, right away: the state reads
  /// `settling` until ``finishIfDone()``, so callbacks that other threads register meanwhile wait behind it,
  /// as they would behind any running callback. Nil unless settled with no callback running.
  @inlinable
  mutating func claimSettled() -> Outcome<Value, Failure>? {
    guard case .settled(let outcome) = self else { return nil }
    self = .settling(outcome, Callbacks())
    return outcome
  }

  /// Takes the next callback to run, or finishes settling when there is none.
  ///
  /// `isLast` says the list is empty after this one; the drainer then calls ``finishIfDone()`` once the
  /// callback has returned, so a future leaves the drain stack as soon as its last callback has run (and
  /// a long chain never piles up on it).
  @inlinable
  mutating func takeNext() -> (
    callback: FutureCallback<Value, Failure>, outcome: Outcome<Value, Failure>, isLast: Bool
  )? {
    guard case .settling(let outcome, var callbacks) = self else { return nil }
    self = .settled(outcome)
    guard let next = callbacks.popFirst() else { return nil }
    let isLast = callbacks.isEmpty
    self = .settling(outcome, callbacks)
    return (next, outcome, isLast)
  }

  /// Finishes settling if no callback was registered meanwhile; returns whether callbacks remain.
  @inlinable
  mutating func finishIfDone() -> Bool {
    guard case .settling(let outcome, let callbacks) = self else { return false }
    guard callbacks.isEmpty else { return true }
    self = .settled(outcome)
    return false
  }

  /// Withdraws one unit of demand; the last withdrawal cancels the future.
  @inlinable
  mutating func withdrawDemand() -> Settlement {
    guard case .pending(let callbacks, let upstream, let demand) = self, demand > 0 else { return .lost }
    if demand > 1 {
      self = .pending(callbacks, upstream: upstream, demand: demand - 1)
      return .lost
    }
    return settle(.cancelled)
  }

  /// Makes the future wait on `source` instead, unless it settled meanwhile.
  ///
  /// Returns whether it did, and the previous upstream so that the caller releases it after unlocking
  /// (its last release could run a deinitializer of a user value).
  @inlinable
  mutating func follow(_ source: any DemandSource) -> (followed: Bool, previous: (any DemandSource)?) {
    guard case .pending(let callbacks, let previous, let demand) = self else { return (false, nil) }
    self = .pending(callbacks, upstream: source, demand: demand)
    return (true, previous)
  }
}
