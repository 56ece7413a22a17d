import Synchronization

extension Future {
  /// The capability to settle one ``Future``: held by the producer, never by the consumers.
  ///
  /// A resolver keeps its future alive, but the future does not keep its resolver alive. When the last
  /// reference to a resolver goes away while its future is pending, the future can never succeed or fail, so
  /// it settles as cancelled right then (its `onCancel` and `whenComplete` callbacks run, an awaiting task resumes)
  /// and one diagnostic naming the place the future was created goes to
  /// ``FutureDiagnostics/unresolvedHook``.
  ///
  /// Do not capture the resolver in its own ``onCancel(_:)`` handler: the handler is stored in the future,
  /// which would then keep the resolver alive and the safety net above could never fire.
  public final class Resolver: Sendable {
    @usableFromInline
    let future: Future
    @usableFromInline
    let site: CreationSite
    /// Whether this resolver has settled the future, or seen it settled. A deinitializer of a generic class
    /// runs unspecialized, so the locked settle attempt below would look up generic metadata for every
    /// resolver released; this flag, which needs no metadata, skips it in the usual case.
    @usableFromInline
    let sawSettlement = Atomic(false)

    @inlinable
    init(_ future: Future, site: CreationSite) {
      self.future = future
      self.site = site
    }

    deinit {
      if !sawSettlement.load(ordering: .acquiring) {
        abandon()
      }
    }

    /// The last reference is going away: cancel the future if it is still pending, and report it.
    /// (Out of line so that the common path of the deinitializer stays free of generic metadata lookups.)
    @inline(never)
    private func abandon() {
      if future.settle(.cancelled) {
        FutureDiagnostics.reportUnresolved(fileID: site.fileID, line: site.line)
      }
    }

    /// Resolves the future with `value`, if it is still pending.
    ///
    /// The future's `whenSuccess` and `whenComplete` callbacks (on the immediate executor) run on this thread before this
    /// method returns, unless it is called from inside a callback: then they run right after that callback
    /// returns.
    ///
    /// - Returns: `true` if this call settled the future; `false` if it had already settled (for example,
    ///   because it was cancelled), in which case nothing changes.
    @inlinable
    @discardableResult
    public func resolve(_ value: Value) -> Bool {
      defer { sawSettlement.store(true, ordering: .releasing) }
      return future.settle(.success(value))
    }

    /// Fails the future with `error`, if it is still pending.
    ///
    /// Callbacks run as described for ``resolve(_:)``.
    ///
    /// - Returns: `true` if this call settled the future, `false` if it had already settled.
    @inlinable
    @discardableResult
    public func reject(_ error: Failure) -> Bool {
      defer { sawSettlement.store(true, ordering: .releasing) }
      return future.settle(.failure(error))
    }

    /// Settles the future with `outcome`, if it is still pending; `.cancelled` behaves as ``Future/cancel()``.
    ///
    /// - Returns: `true` if this call settled the future, `false` if it had already settled.
    @inlinable
    @discardableResult
    public func settle(with outcome: Outcome<Value, Failure>) -> Bool {
      defer { sawSettlement.store(true, ordering: .releasing) }
      return future.settle(outcome, withdrawing: outcome.isCancelled)
    }

    /// Whether the future has been cancelled, so the work can stop early. Polling is fine; ``onCancel(_:)``
    /// is the way to be told.
    @inlinable
    public var isCancelled: Bool {
      future.outcome?.isCancelled ?? false
    }

    /// Registers a handler that runs if the future is cancelled, so the worker can stop its work.
    ///
    /// The handler runs on the cancelling thread, before ``Future/cancel()`` returns, or right away if the
    /// future is already cancelled. It is released without running once the future succeeds or fails.
    @inlinable
    public func onCancel(_ body: @escaping @Sendable () -> Void) {
      future.register(.cancel(body))
    }
  }
}

extension Future.Resolver where Value == Void {
  /// Resolves a `Void` future.
  ///
  /// - Returns: `true` if this call settled the future, `false` if it had already settled.
  @inlinable
  @discardableResult
  public func resolve() -> Bool {
    resolve(())
  }
}
