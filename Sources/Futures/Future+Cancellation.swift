extension Future {
  /// Cancels this future when `token` is cancelled, and returns it.
  ///
  /// Binding does not make the token a waiter: it only calls ``cancel()`` (with everything that implies) when
  /// the source cancels. The binding is dropped when the future settles, so a long-lived source does not
  /// accumulate handlers for futures that are long done.
  ///
  /// ```swift
  /// let session = CancellationSource()
  /// player.load(next).cancel(when: session.token)
  /// ```
  @discardableResult
  public func cancel(when token: CancellationToken) -> Future {
    guard let (storage, id) = token.register({ self.cancel() }) else { return self }
    register(.always { _ in storage.unregister(id) })
    return self
  }
}
