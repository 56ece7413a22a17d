import Futures
import PlayerCore

/// What waits on the stream: its creation at the server, its first audio in the ring, and the timing update
/// behind an acknowledged cork or uncork. Each waiter is taken out exactly once, by the answer or by the
/// stream's end; touched only with the mainloop lock held.
struct StreamWaiters {
  /// The `open` (or prepared stream) waiting for the server to create the stream.
  private var ready: ((Result<Void, PlayerError>) -> Void)?
  /// Starts waiting for the ring's first audio (``StreamFeed/prefill()``), answered off the mainloop thread.
  private var prefill: [Future<Void, PlayerError>.Resolver] = []
  /// What runs with the lock held once the ring holds its first audio (`true`), or when the stream goes first
  /// (`false`): the uncork of a stream prepared to play, which must not wait for a thread hand-over.
  private var prefillActions: [(Bool) -> Void] = []
  /// Corks and uncorks the server acknowledged, waiting for the next timing update.
  private var timing: [TimingWaiter] = []

  /// Waits for the stream's creation.
  mutating func waitForReady(_ body: @escaping (Result<Void, PlayerError>) -> Void) { ready = body }

  /// The creation's waiter, taken out: the stream became ready or failed, or went.
  mutating func takeReady() -> ((Result<Void, PlayerError>) -> Void)? {
    defer { ready = nil }
    return ready
  }

  /// Whether an `open` still waits for the server to create the stream.
  var awaitsReady: Bool { ready != nil }

  /// Waits for the first audio, answered off the mainloop thread.
  mutating func waitForPrefill(_ resolver: Future<Void, PlayerError>.Resolver) { prefill.append(resolver) }

  /// Runs `action` with the lock held once the first audio is there.
  mutating func whenPrefilled(_ action: @escaping (Bool) -> Void) { prefillActions.append(action) }

  /// Whether anything waits for the first audio.
  var awaitsPrefill: Bool { !prefill.isEmpty || !prefillActions.isEmpty }

  /// The first audio's waiters, taken out.
  mutating func takePrefill() -> (resolvers: [Future<Void, PlayerError>.Resolver], actions: [(Bool) -> Void]) {
    defer {
      prefill = []
      prefillActions = []
    }
    return (prefill, prefillActions)
  }

  /// Waits for the next timing update.
  mutating func waitForTiming(_ waiter: TimingWaiter) { timing.append(waiter) }

  /// Whether anything waits for the next timing update.
  var awaitsTiming: Bool { !timing.isEmpty }

  /// The timing update's waiters, taken out.
  mutating func takeTiming() -> [TimingWaiter] {
    defer { timing = [] }
    return timing
  }
}
