extension Future {
  /// Returns a future of the value transformed by `transform`.
  ///
  /// `transform` runs once, on the thread that resolves this future (or right away if it has already
  /// succeeded), so keep it cheap. Failures and cancellation pass through unchanged. The new future waits on
  /// this one: cancelling it cancels this future too, unless something else still waits on this one.
  ///
  /// ```swift
  /// let title: Future<String, LoadError> = loadTrack(url).map { track in track.title }
  /// ```
  @inlinable
  public func map<NewValue>(_ transform: @escaping @Sendable (Value) -> NewValue) -> Future<NewValue, Failure> {
    if let mapped = mapSettled(transform) { return mapped }
    let derived = Future<NewValue, Failure>(upstream: self)
    register(
      .always { outcome in
        guard let value = derived.valueOrSettle(outcome) else { return }
        derived.settle(.success(transform(value)))
      },
      addingDemand: true
    )
    return derived
  }

  /// `map` on a future that has already settled, when no callback is running on this thread: the transform
  /// runs now, as this future's callback, and the new future is created settled, with no callback, drain or
  /// pending future in between (a settled future has nothing to cancel upstream). Nil otherwise, and then
  /// nothing was done: inside a callback the transform must wait until that callback returns.
  ///
  /// A pending future costs this one look at its state, under its lock, before the usual path.
  @inlinable
  func mapSettled<NewValue>(_ transform: (Value) -> NewValue) -> Future<NewValue, Failure>? {
    guard let outcome = withState({ $0.claimSettled() }) else { return nil }
    var mapped: Future<NewValue, Failure>?
    let ran = DrainStack.drainIfIdle { stack in
      switch outcome {
      case .success(let value): mapped = Future<NewValue, Failure>(outcome: .success(transform(value)))
      case .failure(let error): mapped = Future<NewValue, Failure>(outcome: .failure(error))
      case .cancelled: mapped = Future<NewValue, Failure>(outcome: .cancelled)
      }
      // Callbacks registered by other threads while the transform ran wait for this thread to run them.
      if withState({ $0.finishIfDone() }) { stack.push(self, Future.drainNext) }
    }
    guard ran else {
      // A callback is running on this thread: give the claim back (what other threads registered meanwhile
      // then runs after that callback, like everything it makes due) and take the usual path.
      if withState({ $0.finishIfDone() }) { DrainStack.current.push(self, Future.drainNext) }
      return nil
    }
    return mapped
  }

  /// Returns a future of the value transformed by `transform`, which may fail the new future by throwing.
  ///
  /// Like ``map(_:)``, for a step that can fail without starting more asynchronous work. (It is a separate
  /// method because a `map` whose closure has a typed `throws` would make the error type of every `map` call
  /// ambiguous.)
  ///
  /// ```swift
  /// let checked = loadTrack(url).tryMap { track throws(LoadError) in
  ///   guard track.duration > .zero else { throw .empty }
  ///   return track
  /// }
  /// ```
  @inlinable
  public func tryMap<NewValue>(
    _ transform: @escaping @Sendable (Value) throws(Failure) -> NewValue
  ) -> Future<NewValue, Failure> {
    let derived = Future<NewValue, Failure>(upstream: self)
    register(
      .always { outcome in
        guard let value = derived.valueOrSettle(outcome) else { return }
        do throws(Failure) {
          derived.settle(.success(try transform(value)))
        } catch {
          derived.settle(.failure(error))
        }
      },
      addingDemand: true
    )
    return derived
  }

  /// Returns a future that settles like the future `transform` returns: a continuation that returns a
  /// future yields a flat future, not a future of a future.
  ///
  /// `transform` runs once, on the thread that resolves this future, and only if the new future is still
  /// wanted by then. Failures and cancellation pass through. The new future waits on this one and then on the
  /// future `transform` returned, so cancelling it cancels whichever it is waiting on (when nothing else waits
  /// on that one). Recursion through `flatMap` is stack safe however deep it goes. A `transform` that returns
  /// the new future itself would make it wait on itself forever: it is cancelled instead, and reported to
  /// ``FutureDiagnostics/unresolvedHook`` as made at `fileID` and `line` (the caller's, by default).
  ///
  /// ```swift
  /// let playing = decoder.open(url)
  ///   .flatMap { stream in output.connect(stream) }
  ///   .flatMap { sink in sink.start() }
  /// ```
  @inlinable
  public func flatMap<NewValue>(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ transform: @escaping @Sendable (Value) -> Future<NewValue, Failure>
  ) -> Future<NewValue, Failure> {
    let site = CreationSite(fileID: fileID, line: line)
    let derived = Future<NewValue, Failure>(upstream: self)
    register(
      .always { outcome in
        guard let value = derived.valueOrSettle(outcome) else { return }
        // Nobody wants the result any more: do not start the next step.
        guard !derived.isSettled else { return }
        derived.follow(transform(value), site: site)
      },
      addingDemand: true
    )
    return derived
  }

  /// Returns a future whose error is transformed by `transform`; values and cancellation pass through.
  ///
  /// `transform` runs on the thread that fails this future. The new future waits on this one.
  ///
  /// ```swift
  /// let ack: Future<Void, PlayerError> = pulse.drain().mapError { PlayerError.output($0) }
  /// ```
  @inlinable
  public func mapError<NewFailure>(
    _ transform: @escaping @Sendable (Failure) -> NewFailure
  ) -> Future<Value, NewFailure> {
    let derived = Future<Value, NewFailure>(upstream: self)
    register(
      .always { outcome in
        switch outcome {
        case .success(let value): derived.settle(.success(value))
        case .failure(let error): derived.settle(.failure(transform(error)))
        case .cancelled: derived.settle(.cancelled)
        }
      },
      addingDemand: true
    )
    return derived
  }
}
