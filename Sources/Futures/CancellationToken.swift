/// The observing side of a ``CancellationSource``: pass it to operations so one source can cancel many of
/// them.
///
/// Bind a future with ``Future/cancel(when:)``, or register a handler with ``onCancel(_:)``. A token is a
/// cheap value; copies observe the same source.
///
/// ```swift
/// func load(_ url: URL, token: CancellationToken) -> Future<Track, LoadError> {
///   decoder.open(url).flatMap { stream in stream.readAll() }.cancel(when: token)
/// }
/// ```
public struct CancellationToken: Sendable {
  private let storage: Storage?

  init(storage: Storage) {
    self.storage = storage
  }

  private init() {
    storage = nil
  }

  /// A token that is never cancelled.
  public static let never = CancellationToken()

  /// Whether the source has cancelled.
  public var isCancelled: Bool {
    storage?.isCancelled ?? false
  }

  /// Runs `body` when the source cancels (on the cancelling thread), or right away if it already has.
  ///
  /// If the source is released without cancelling, `body` is released without running.
  public func onCancel(_ body: @escaping @Sendable () -> Void) {
    _ = storage?.register(body)
  }

  /// Registers a handler that can be removed again; `nil` if it ran at once or never will.
  func register(_ body: @escaping @Sendable () -> Void) -> (storage: Storage, id: UInt64)? {
    guard let storage, let id = storage.register(body) else { return nil }
    return (storage, id)
  }

  /// The shared state of a source and its tokens.
  final class Storage: Sendable {
    private enum State {
      case active(handlers: [UInt64: @Sendable () -> Void], nextID: UInt64)
      case cancelled
      case retired
    }

    private let state = Lock(State.active(handlers: [:], nextID: 0))

    var isCancelled: Bool {
      state.withLock { state in
        if case .cancelled = state { return true }
        return false
      }
    }

    /// Stores `body`, or runs it at once if already cancelled; returns its id when stored.
    func register(_ body: @escaping @Sendable () -> Void) -> UInt64? {
      let stored: UInt64?? = state.withLock { state in
        switch state {
        case .active(var handlers, let id):
          state = .retired
          handlers[id] = body
          state = .active(handlers: handlers, nextID: id + 1)
          return .some(id)
        case .cancelled:
          return .some(nil)
        case .retired:
          return nil
        }
      }
      guard let stored else { return nil }
      if stored == nil {
        body()
      }
      return stored
    }

    /// Removes a handler that is no longer needed (its future settled).
    func unregister(_ id: UInt64) {
      let removed: (@Sendable () -> Void)? = state.withLock { state in
        guard case .active(var handlers, let nextID) = state else { return nil }
        state = .retired
        let removed = handlers.removeValue(forKey: id)
        state = .active(handlers: handlers, nextID: nextID)
        return removed
      }
      // Released here, outside the lock: it may hold the last reference to something with a deinit.
      _ = removed
    }

    /// Cancels, running the handlers in registration order.
    func cancel() -> Bool {
      let handlers: [UInt64: @Sendable () -> Void]? = state.withLock { state in
        guard case .active(let handlers, _) = state else { return nil }
        state = .cancelled
        return handlers
      }
      guard let handlers else { return false }
      for (_, handler) in handlers.sorted(by: { $0.key < $1.key }) {
        handler()
      }
      return true
    }

    /// The source is gone without cancelling: no handler can ever run.
    func retire() {
      let handlers: [UInt64: @Sendable () -> Void]? = state.withLock { state in
        guard case .active(let handlers, _) = state else { return nil }
        state = .retired
        return handlers
      }
      _ = handlers
    }
  }
}
