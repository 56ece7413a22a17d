/// A pause whose cork the server acknowledged, waiting for the timing update answered right after it: the
/// pause is confirmed with that update's position, or failed when the stream goes first. Settles once; used
/// on the mainloop thread only.
final class CorkOutcome {
  private var settle: ((Result<Void, PlayerError>) -> Void)?

  /// An outcome that runs `settle` once, with the first of ``answer()`` and ``fail(_:)``.
  init(settle: @escaping (Result<Void, PlayerError>) -> Void) {
    self.settle = settle
  }

  /// The timing update came: the pause is confirmed.
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
