extension Future {
  /// Returns a future that cannot fail: an error is replaced by the value `body` returns for it.
  ///
  /// Values and cancellation pass through (a cancelled future stays cancelled: recovering is about errors).
  /// `body` runs on the thread that fails this future. The new future waits on this one.
  ///
  /// ```swift
  /// let artwork: Future<Image, Never> = fetchArtwork(track).recover { _ in .placeholder }
  /// ```
  @inlinable
  public func recover(_ body: @escaping @Sendable (Failure) -> Value) -> Future<Value, Never> {
    let derived = Future<Value, Never>(upstream: self)
    register(
      .always { outcome in
        switch outcome {
        case .success(let value): derived.settle(.success(value))
        case .failure(let error): derived.settle(.success(body(error)))
        case .cancelled: derived.settle(.cancelled)
        }
      },
      addingDemand: true
    )
    return derived
  }

  /// Returns a future that, on failure, settles like the future `body` returns for the error.
  ///
  /// Named apart from the value-returning ``recover(_:)``, as in SwiftNIO: this is `flatMap` for the error path, and collapses the same way: retry loops written with it stay flat
  /// and stack safe. Values and cancellation pass through; the error type may change. A `body` that returns the
  /// new future itself is caught as in ``flatMap(fileID:line:_:)``.
  ///
  /// ```swift
  /// let stream = openPrimary(url).flatMapError { _ in openFallback(url) }
  /// ```
  @inlinable
  public func flatMapError<NewFailure>(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ body: @escaping @Sendable (Failure) -> Future<Value, NewFailure>
  ) -> Future<Value, NewFailure> {
    let site = CreationSite(fileID: fileID, line: line)
    let derived = Future<Value, NewFailure>(upstream: self)
    register(
      .always { outcome in
        switch outcome {
        case .success(let value):
          derived.settle(.success(value))
        case .failure(let error):
          guard !derived.isSettled else { return }
          derived.follow(body(error), site: site)
        case .cancelled:
          derived.settle(.cancelled)
        }
      },
      addingDemand: true
    )
    return derived
  }
}
