import Synchronization

/// Drops callbacks without cancelling the work they observe.
///
/// Cancelling a future stops the work; sometimes the work should go on (the command must still reach the
/// server) but the code that wanted the answer is gone, such as a view that was closed. Wrap such callbacks
/// with `wrap`: after ``invalidate()``, wrapped callbacks do nothing. The check happens when
/// the callback runs, on its executor, so a callback already queued on the main actor is dropped too.
///
/// ```swift
/// let viewToken = InvalidationToken()
/// controller.send(.next).whenSuccess(on: .mainActor, viewToken.wrap { state in
///   MainActor.assumeIsolated { view.render(state) }
/// })
/// // when the view closes:
/// viewToken.invalidate()
/// ```
public struct InvalidationToken: Sendable {
  private final class Storage: Sendable {
    let isValid = Atomic(true)
  }

  private let storage = Storage()

  /// Creates a valid token.
  public init() {}

  /// Whether the token is still valid (``invalidate()`` has not been called).
  public var isValid: Bool {
    storage.isValid.load(ordering: .acquiring)
  }

  /// Invalidates the token: from now on, callbacks wrapped by it do nothing. It cannot be undone.
  public func invalidate() {
    storage.isValid.store(false, ordering: .releasing)
  }

  /// Returns a callback that calls `body` only while the token is valid.
  public func wrap<Argument>(_ body: @escaping @Sendable (Argument) -> Void) -> @Sendable (Argument) -> Void {
    let storage = storage
    return { argument in
      if storage.isValid.load(ordering: .acquiring) { body(argument) }
    }
  }

  /// Returns a callback without arguments that calls `body` only while the token is valid.
  public func wrap(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
    let storage = storage
    return {
      if storage.isValid.load(ordering: .acquiring) { body() }
    }
  }
}
