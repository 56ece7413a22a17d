/// The side of a cancellation token that can cancel: one source cancels every future bound to its token.
///
/// Hand ``token`` to the operations you start, keep the source, and call ``cancel()`` to cancel them all
/// at once, for example when the user skips to the next track while the current one is still loading.
///
/// ```swift
/// let loading = CancellationSource()
/// decoder.open(url).cancel(when: loading.token)
/// artwork.fetch(url).cancel(when: loading.token)
/// loading.cancel()   // both are cancelled
/// ```
///
/// When the last copy of a source is released without cancelling, its token can never be cancelled any more:
/// it drops its handlers (releasing what they captured) instead of keeping them forever.
public struct CancellationSource: Sendable {
  private let owner: Owner

  /// Creates a source whose token is not cancelled.
  public init() {
    owner = Owner()
  }

  /// The token that observes this source.
  public var token: CancellationToken {
    CancellationToken(storage: owner.storage)
  }

  /// Whether ``cancel()`` has been called.
  public var isCancelled: Bool {
    owner.storage.isCancelled
  }

  /// Cancels the token: runs its handlers, in registration order, on this thread before returning, which
  /// cancels every future bound to it.
  ///
  /// - Returns: `true` if this call cancelled the token, `false` if it was already cancelled.
  @discardableResult
  public func cancel() -> Bool {
    owner.storage.cancel()
  }

  /// Retires the token when the last copy of the source goes away.
  private final class Owner: Sendable {
    let storage = CancellationToken.Storage()

    deinit {
      storage.retire()
    }
  }
}
