import Futures
import Synchronization

/// The subscribers to published states: callbacks and async streams, each told of every state in order.
final class StateObservers: Sendable {
  private struct Entries {
    var nextID = 0
    var callbacks: [Int: @Sendable (PlayerState) -> Void] = [:]
    var streams: [Int: AsyncStream<PlayerState>.Continuation] = [:]
  }
  private let entries = Lock(Entries())

  /// Adds a callback and returns its identifier for ``remove(_:)``.
  func add(_ body: @escaping @Sendable (PlayerState) -> Void) -> Int {
    entries.withLock { e in
      e.nextID += 1
      e.callbacks[e.nextID] = body
      return e.nextID
    }
  }

  /// Adds a stream continuation, removed again when its stream terminates.
  func add(_ continuation: AsyncStream<PlayerState>.Continuation) {
    let id = entries.withLock { e in
      e.nextID += 1
      e.streams[e.nextID] = continuation
      return e.nextID
    }
    continuation.onTermination = { [weak self] _ in self?.remove(id) }
  }

  /// Removes a callback or stream.
  func remove(_ id: Int) {
    entries.withLock { e in
      e.callbacks[id] = nil
      e.streams[id] = nil
    }
  }

  /// How many subscribers there are (for leak tests).
  var count: Int { entries.withLock { $0.callbacks.count + $0.streams.count } }

  /// Tells everyone of `state`. Called only by the controller's one running job, so the order is the
  /// publication order; the callbacks run outside the lock so that one may unsubscribe from inside.
  func publish(_ state: PlayerState) {
    let (callbacks, streams) = entries.withLock { e in
      (e.callbacks.sorted { $0.key < $1.key }.map(\.value), Array(e.streams.values))
    }
    for callback in callbacks { callback(state) }
    for stream in streams { stream.yield(state) }
  }

  /// Ends every stream (the controller is shutting down).
  func finish() {
    let streams = entries.withLock { e in
      let all = Array(e.streams.values)
      e.streams.removeAll()
      return all
    }
    for stream in streams { stream.finish() }
  }
}

/// Keeps a callback subscription alive; ``cancel()`` ends it.
public final class StateObservation: Sendable {
  private let cancelAction: Lock<(@Sendable () -> Void)?>

  init(_ cancel: @escaping @Sendable () -> Void) {
    cancelAction = Lock(cancel)
  }

  /// Stops the callbacks. Safe to call more than once and from inside the callback.
  public func cancel() {
    let action = cancelAction.withLock { a in
      defer { a = nil }
      return a
    }
    action?()
  }
}
