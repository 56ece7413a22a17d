import PlayerCore

/// A cork or an uncork the server acknowledged, waiting for the timing update answered right after it: the
/// pause or the start is confirmed with that update's position, or failed when the stream goes first. Settles
/// once; used on the mainloop thread only.
final class TimingWaiter {
  private var settle: ((Result<Void, PlayerError>) -> Void)?

  /// A waiter that runs `settle` once, with the first of ``answer()`` and ``fail(_:)``.
  init(settle: @escaping (Result<Void, PlayerError>) -> Void) {
    self.settle = settle
  }

  /// The timing update came: the operation is confirmed.
  func answer() {
    take()?(.success(()))
  }

  /// The stream went away before the timing update came.
  func fail(_ error: PlayerError) {
    take()?(.failure(error))
  }

  private func take() -> ((Result<Void, PlayerError>) -> Void)? {
    defer { settle = nil }
    return settle
  }
}
