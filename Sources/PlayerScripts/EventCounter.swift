import Futures

/// Counts an event from any thread: the output's underflows, which a controller reports before a script's
/// runner exists (``ScriptRunner``'s `underflows`).
public final class EventCounter: Sendable {
  private let count = Lock(0)

  /// A counter at 0.
  public init() {}

  /// Counts one more.
  public func increment() {
    count.withLock { $0 += 1 }
  }

  /// How many so far.
  public var value: Int { count.withLock { $0 } }
}
