import Synchronization

/// The floor: the smallest future that is still correct under concurrency, a Mutex around a value or a list
/// of callbacks.
///
/// It has no failure, no cancellation, no diagnostics and no stack safety (`map` chains resolve by
/// recursion). What splay's `Future` costs beyond this is the price of its guarantees, and issue 3 asks for it
/// to stay within 1.5× of this, measured in the same run.
public final class BareFuture<Value: Sendable>: Sendable {
  private struct State {
    var value: Value?
    var callbacks: [@Sendable (Value) -> Void] = []
  }

  private let state: Mutex<State>

  /// A pending future.
  public init() {
    state = Mutex(State())
  }

  /// A future that has already succeeded with `value`.
  public init(value: Value) {
    state = Mutex(State(value: value))
  }

  /// Runs `callback` with the value: on the resolving thread, or right away if it is already resolved.
  public func whenResolved(_ callback: @escaping @Sendable (Value) -> Void) {
    let value: Value? = state.withLock { state in
      if state.value == nil { state.callbacks.append(callback) }
      return state.value
    }
    if let value { callback(value) }
  }

  /// Resolves the future and runs its callbacks, outside the lock; `false` if it was already resolved.
  @discardableResult
  public func resolve(_ value: Value) -> Bool {
    let callbacks: [@Sendable (Value) -> Void]? = state.withLock { state in
      guard state.value == nil else { return nil }
      state.value = value
      defer { state.callbacks = [] }
      return state.callbacks
    }
    guard let callbacks else { return false }
    for callback in callbacks { callback(value) }
    return true
  }

  /// A future of the value transformed by `transform`.
  public func map<NewValue>(_ transform: @escaping @Sendable (Value) -> NewValue) -> BareFuture<NewValue> {
    let derived = BareFuture<NewValue>()
    whenResolved { derived.resolve(transform($0)) }
    return derived
  }
}
