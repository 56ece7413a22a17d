/// The callbacks of one future, in registration order.
///
/// Most futures have exactly one callback (the next step of a chain), so the list keeps zero or one
/// callback inline and only allocates an array from the second one on. Callbacks are taken from the front
/// one at a time while the future drains, so the array keeps a `head` index instead of shifting elements.
@usableFromInline
struct CallbackList<Value: Sendable, Failure: Error>: Sendable {
  @usableFromInline
  typealias Callback = FutureCallback<Value, Failure>

  @usableFromInline
  enum Storage: Sendable {
    case none
    case one(Callback)
    case many(ContiguousArray<Callback>, head: Int)
  }

  @usableFromInline
  var storage: Storage

  /// An empty list.
  @inlinable
  init() {
    storage = .none
  }

  /// A list holding one callback.
  @inlinable
  init(_ callback: Callback) {
    storage = .one(callback)
  }

  /// Whether no callback is waiting to run.
  @inlinable
  var isEmpty: Bool {
    if case .none = storage { return true }
    return false
  }

  /// Adds a callback at the end.
  @inlinable
  mutating func append(_ callback: Callback) {
    switch storage {
    case .none:
      storage = .one(callback)
    case .one(let first):
      storage = .many([first, callback], head: 0)
    case .many(var callbacks, let head):
      // Drop the enum's reference first so `callbacks` is unique and the append happens in place;
      // otherwise every registration would copy the whole array.
      storage = .none
      callbacks.append(callback)
      storage = .many(callbacks, head: head)
    }
  }

  /// Removes and returns the first callback.
  @inlinable
  mutating func popFirst() -> Callback? {
    switch storage {
    case .none:
      return nil
    case .one(let callback):
      storage = .none
      return callback
    case .many(var callbacks, let head):
      storage = .none
      let callback = callbacks[head]
      if head + 1 == callbacks.count {
        return callback
      }
      // Overwrite the slot so the closure (and whatever it captured) is released once it has run,
      // not when the last sibling has.
      callbacks[head] = .spent
      storage = .many(callbacks, head: head + 1)
      return callback
    }
  }
}
