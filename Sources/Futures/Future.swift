import Synchronization

/// A value, error or cancellation that becomes available once, later.
///
/// A `Future` is the read-only side: anyone holding it can observe, transform, await or cancel it. Only the
/// producer holds its ``Resolver`` and can settle it with a value or an error.
///
/// ```swift
/// func seek(to position: Duration) -> Future<Duration, PlayerError> {
///   Future { resolver in
///     let operation = stream.seek(position) { result in
///       switch result {
///       case .success(let reached): resolver.resolve(reached)
///       case .failure(let error): resolver.reject(error)
///       }
///     }
///     resolver.onCancel { operation.abandon() }
///   }
/// }
///
/// seek(to: .seconds(30))
///   .map { position in "now at \(position)" }
///   .whenSuccess(on: .queue(ui)) { text in status.show(text) }
///   .whenFailure { error in log(error) }
/// ```
///
/// ## Guarantees
/// - It settles exactly once: the first of resolve, reject and cancel wins, from any thread; the other calls
///   return `false` and change nothing.
/// - Every callback runs exactly once, and a future's callbacks start in registration order. On the
///   ``ExecutionContext/immediate`` executor (the default) they also run one at a time; another executor receives them
///   in that order and runs them as it runs any job, so a concurrent queue may run two at once. A callback
///   registered after the future settled runs before the registering call returns, or, when registered from
///   inside another callback, right after that callback returns.
/// - No user code runs while the future's lock is held, so callbacks may freely register, settle and cancel.
/// - Callbacks are drained iteratively, so arbitrarily long chains neither recurse nor overflow the stack.
/// - Callbacks are released once they have run, or once the outcome makes them irrelevant.
/// - If the ``Resolver`` is released while the future is pending, the future settles as cancelled and a
///   diagnostic naming its creation site goes to ``FutureDiagnostics/unresolvedHook``.
///
/// ## Cancellation
/// ``cancel()`` settles the future as cancelled and runs its `onCancel` callbacks, including the
/// resolver's, so the producer can stop working. A future made by a combinator (`map`, `flatMap`,
/// `timeout`, `all`, ...) *waits on* its sources, and awaiting ``settled`` or `value` waits on the future too.
/// Each future counts who waits on it. When a waiter stops waiting before the future settles (it was
/// cancelled, it settled early because a `race` was won or a `timeout` fired, or its awaiting task was
/// cancelled), the count goes down, and when the count reaches zero that way the future is cancelled too,
/// and the rule applies again upstream. Plain observers (`whenSuccess`, `whenFailure`, `whenComplete`, `onCancel`) are not
/// waiters: they watch whatever happens, and never keep work alive.
public final class Future<Value: Sendable, Failure: Error>: @unchecked Sendable {
  // Safety: `unguardedState` is only ever accessed inside `lock.withLock`, through `withState`; this is the
  // one unchecked Sendable conformance of the library.
  //
  // Why not a `Mutex<FutureState<Value, Failure>>`: a generic class is destroyed by unspecialized code, which
  // looks up the metadata of every generic wrapper around its stored properties (the `Mutex`, its `_Cell`,
  // the state) in the runtime's hash tables. With a lock of a concrete type beside the state, freeing a future
  // costs one such lookup instead of three, which made each step of a chain about a third cheaper.

  @usableFromInline
  let lock = Lock<Void>(())

  @usableFromInline
  @exclusivity(unchecked)
  var unguardedState: FutureState<Value, Failure>

  /// Runs `body` on the state, under the lock. `body` must not run user code.
  @inlinable
  func withState<Result>(_ body: (inout FutureState<Value, Failure>) -> Result) -> Result {
    lock.withLock { _ in body(&unguardedState) }
  }

  /// A pending future that waits on `upstream` (for cancellation propagation), settled by library code.
  @inlinable
  init(upstream: (any DemandSource)?) {
    unguardedState = .pending(CallbackList(), upstream: upstream, demand: 0)
  }

  /// A future that is already settled.
  @inlinable
  init(outcome: Outcome<Value, Failure>) {
    unguardedState = .settled(outcome)
  }

  /// Creates a future and hands its ``Resolver`` to `body`, which runs synchronously, right away.
  ///
  /// `body` typically starts some work and stores the resolver in its completion handler. If every reference
  /// to the resolver is gone before it settles the future, the future settles as cancelled and a diagnostic
  /// naming `fileID` and `line` (the caller's, by default) goes to ``FutureDiagnostics/unresolvedHook``.
  ///
  /// ```swift
  /// let loaded = Future<Track, LoadError> { resolver in
  ///   loader.load(url) { track, error in
  ///     if let track { resolver.resolve(track) } else { resolver.reject(LoadError(error)) }
  ///   }
  /// }
  /// ```
  @inlinable
  public convenience init(fileID: StaticString = #fileID, line: UInt = #line, _ body: (Resolver) -> Void) {
    self.init(upstream: nil)
    body(Resolver(self, site: CreationSite(fileID: fileID, line: line)))
  }

  /// Creates a future that has already succeeded with `value`.
  @inlinable
  public static func resolved(_ value: Value) -> Future {
    Future(outcome: .success(value))
  }

  /// Creates a future that has already failed with `error`.
  @inlinable
  public static func rejected(_ error: Failure) -> Future {
    Future(outcome: .failure(error))
  }

  /// Creates a future that is already cancelled.
  @inlinable
  public static func cancelled() -> Future {
    Future(outcome: .cancelled)
  }

  /// Creates a pending future and the resolver that settles it.
  ///
  /// The future does not keep its resolver alive: keep the resolver wherever the work completes. When the
  /// last reference to it goes away while the future is pending, the future settles as cancelled and a
  /// diagnostic naming `fileID` and `line` (the caller's, by default) goes to
  /// ``FutureDiagnostics/unresolvedHook``.
  ///
  /// ```swift
  /// let (ack, resolver) = Future<Void, PulseError>.pending()
  /// pendingAcks[tag] = resolver
  /// return ack
  /// ```
  @inlinable
  public static func pending(
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> (future: Future, resolver: Resolver) {
    let future = Future(upstream: nil)
    return (future, Resolver(future, site: CreationSite(fileID: fileID, line: line)))
  }

  /// The outcome, or `nil` while the future is pending.
  @inlinable
  public var outcome: Outcome<Value, Failure>? {
    withState { $0.outcome }
  }

  /// Whether the future has settled (succeeded, failed or been cancelled).
  @inlinable
  public var isSettled: Bool {
    outcome != nil
  }

  /// Calls `body` with the value if the future succeeds.
  ///
  /// `body` runs on `executor`; with the default, ``ExecutionContext/immediate``, it runs on the thread that
  /// resolves the future, or right away (before this method returns) if the future has already succeeded.
  /// It is released without running if the future fails or is cancelled.
  ///
  /// - Returns: this future, so observers can be chained.
  @inlinable
  @discardableResult
  public func whenSuccess(on executor: ExecutionContext = .immediate, _ body: @escaping @Sendable (Value) -> Void)
    -> Future
  {
    if executor.isImmediate {
      register(.success(body))
    } else {
      register(.success { value in executor.execute { body(value) } })
    }
    return self
  }

  /// Calls `body` with the error if the future fails.
  ///
  /// `body` runs on `executor`, as for ``whenSuccess(on:_:)``. It is released without running if the future succeeds
  /// or is cancelled.
  ///
  /// - Returns: this future, so observers can be chained.
  @inlinable
  @discardableResult
  public func whenFailure(on executor: ExecutionContext = .immediate, _ body: @escaping @Sendable (Failure) -> Void)
    -> Future
  {
    if executor.isImmediate {
      register(.failure(body))
    } else {
      register(.failure { error in executor.execute { body(error) } })
    }
    return self
  }

  /// Calls `body` with the outcome, whatever it is.
  ///
  /// `body` runs on `executor`, as for ``whenSuccess(on:_:)``. Use ``finally(on:_:)`` instead when the rest of a chain
  /// must wait for the cleanup.
  ///
  /// - Returns: this future, so observers can be chained.
  @inlinable
  @discardableResult
  public func whenComplete(
    on executor: ExecutionContext = .immediate,
    _ body: @escaping @Sendable (Outcome<Value, Failure>) -> Void
  ) -> Future {
    if executor.isImmediate {
      register(.always(body))
    } else {
      register(.always { outcome in executor.execute { body(outcome) } })
    }
    return self
  }

  /// Calls `body` if the future is cancelled.
  ///
  /// `body` runs on `executor`; with the default it runs on the thread that cancels (before ``cancel()``
  /// returns), or right away if the future is already cancelled. It is released without running if the future
  /// succeeds or fails.
  ///
  /// - Returns: this future, so observers can be chained.
  @inlinable
  @discardableResult
  public func onCancel(on executor: ExecutionContext = .immediate, _ body: @escaping @Sendable () -> Void) -> Future {
    if executor.isImmediate {
      register(.cancel(body))
    } else {
      register(.cancel { executor.execute(body) })
    }
    return self
  }

  /// Settles the future as cancelled, if it is still pending.
  ///
  /// On this thread, before returning, it runs the future's `onCancel` and `whenComplete` callbacks (those on the
  /// immediate executor) and the resolver's ``Resolver/onCancel(_:)`` handlers, so the producer can stop its
  /// work; `whenSuccess` and `whenFailure` callbacks are released. Then it stops waiting on whatever this future waits on,
  /// which cancels those sources that nothing else waits on (see "Cancellation" above).
  ///
  /// - Returns: `true` if this call cancelled the future, `false` if it had already settled.
  @inlinable
  @discardableResult
  public func cancel() -> Bool {
    settle(.cancelled, withdrawing: true)
  }

  /// Settles the future if it is still pending, and returns whether this call did.
  ///
  /// - Parameter withdrawing: whether to stop waiting on the upstream, which may cancel it. Pass `true` when
  ///   the future settles before its upstream does (a cancellation, a timeout, a won race). The upstream is
  ///   let go before this future's callbacks run: what they start next (a retry's next attempt) comes after
  ///   the abandoned work was cancelled, never beside it.
  @inlinable
  @discardableResult
  func settle(_ outcome: Outcome<Value, Failure>, withdrawing: Bool = false) -> Bool {
    guard case .won(let delivery, let upstream) = withState({ $0.settle(outcome) }) else { return false }
    if withdrawing, let upstream {
      upstream.withdrawDemand()
    }
    deliver(delivery)
    return true
  }

  /// The value of an input's success; an input's failure or cancellation settles this future the same way
  /// (`withdrawing` as for ``settle(_:withdrawing:)``) and gives nil: what every combinator does with those.
  @inlinable
  func valueOrSettle<Input>(_ outcome: Outcome<Input, Failure>, withdrawing: Bool = false) -> Input? {
    switch outcome {
    case .success(let value): return value
    case .failure(let error): settle(.failure(error), withdrawing: withdrawing)
    case .cancelled: settle(.cancelled, withdrawing: withdrawing)
    }
    return nil
  }

  /// Registers a callback; `addingDemand` also makes the caller a waiter (see "Cancellation").
  @inlinable
  func register(_ callback: FutureCallback<Value, Failure>, addingDemand: Bool = false) {
    deliver(withState { $0.register(callback, addingDemand: addingDemand) })
  }

  /// Settles this future like `source` does, waiting on it from now on: how `flatMap` collapses a future
  /// of a future. A future told to follow itself could never settle: it is cancelled and reported as made at
  /// `site`, the combinator's call.
  @inlinable
  func follow(_ source: Future, site: CreationSite) {
    guard source !== self else { return followedItself(site) }
    source.register(.always { outcome in self.settle(outcome) }, addingDemand: true)
    let (followed, _) = withState { $0.follow(source) }
    if !followed {
      // Cancelled meanwhile: nobody is waiting for `source` on our behalf any more.
      source.withdrawDemand()
    }
  }

  @usableFromInline
  @inline(never)
  func followedItself(_ site: CreationSite) {
    if settle(.cancelled, withdrawing: true) {
      FutureDiagnostics.reportUnresolved(fileID: site.fileID, line: site.line, reason: .followedItself)
    }
  }

  @inlinable
  func deliver(_ delivery: FutureState<Value, Failure>.Delivery) {
    switch delivery {
    case .nothing:
      break
    case .schedule:
      DrainStack.current.push(self, Future.drainNext)
    case .drain:
      DrainStack.current.drain(self, drainNext: Future.drainNext)
    }
  }

  /// Runs the next callback, if there is one, and returns whether more are waiting; when none is left the
  /// future is marked settled and this returns `false`. (Static and untyped, for ``DrainStack``.)
  ///
  /// The callback is released when this returns, before the drainer moves on.
  @inlinable
  static func drainNext(_ object: AnyObject) -> Bool {
    let future = unsafeDowncast(object, to: Future.self)
    guard let next = future.withState({ $0.takeNext() }) else { return false }
    next.callback(next.outcome)
    return next.isLast ? future.withState { $0.finishIfDone() } : true
  }
}

extension Future: DemandSource {
  @inlinable
  func withdrawDemand(into work: inout [any DemandSource]) {
    guard case .won(let delivery, let upstream) = withState({ $0.withdrawDemand() }) else { return }
    deliver(delivery)
    if let upstream {
      work.append(upstream)
    }
  }
}
