extension Future where Failure == Never {
  /// Returns the same future typed with an error type, so it can join a chain that can fail.
  ///
  /// ```swift
  /// let tick: Future<Void, Never> = clock.tick()
  /// let ready: Future<Void, PlayerError> = tick.promoteError().flatMap { output.flush() }
  /// ```
  @inlinable
  public func promoteError<NewFailure>(to type: NewFailure.Type = NewFailure.self) -> Future<Value, NewFailure> {
    let derived = Future<Value, NewFailure>(upstream: self)
    register(
      .always { outcome in
        switch outcome {
        case .success(let value): derived.settle(.success(value))
        case .cancelled: derived.settle(.cancelled)
        }
      },
      addingDemand: true
    )
    return derived
  }

  /// A future that cannot fail has nothing to catch.
  @available(*, unavailable, message: "a Future whose Failure is Never cannot fail; use then or always")
  @discardableResult
  public func whenFailure(on executor: ExecutionContext = .immediate, _ body: @escaping @Sendable (Never) -> Void)
    -> Future
  {
    fatalError("unavailable")
  }
}
