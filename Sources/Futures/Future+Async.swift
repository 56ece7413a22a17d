extension Future {
  /// Creates a future that runs `body` in a new task and settles with what it returns or throws.
  ///
  /// The future owns the task: ``cancel()`` cancels it, and `body` sees the cancellation as usual
  /// (`Task.isCancelled`, `CancellationError` from `Task.sleep`, ...). The future is already cancelled by then,
  /// so whatever `body` ends with is ignored. Diagnostics name `fileID` and `line` (the caller's, by default) as
  /// the place the future was made.
  ///
  /// ```swift
  /// let metadata = Future<Metadata, ProbeError> { try await prober.probe(url) }
  /// ```
  public convenience init(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    priority: TaskPriority? = nil,
    _ body: @escaping @Sendable () async throws(Failure) -> Value
  ) {
    self.init(upstream: nil)
    let resolver = Resolver(self, site: CreationSite(fileID: fileID, line: line))
    let task = Task(priority: priority) {
      do throws(Failure) {
        resolver.resolve(try await body())
      } catch {
        resolver.reject(error)
      }
    }
    register(.cancel { task.cancel() })
  }

  /// The outcome, once the future settles; never throws, and never hangs on a cancelled task.
  ///
  /// If the future has already settled, its outcome is returned, even when the awaiting task is cancelled.
  /// Otherwise the task suspends (no thread is blocked) until the future settles. If the awaiting task is
  /// cancelled first, the wait stops at once and returns `.cancelled`, and the task stops waiting on the
  /// future: an awaiting task counts as a waiter, like a derived future, so the future is cancelled too unless
  /// something else (another awaiting task, a derived future) still waits on it.
  ///
  /// ```swift
  /// switch await controller.send(.next).settled {
  /// case .success(let state): print(state)
  /// case .failure(let error): print("failed: \(error)")
  /// case .cancelled: print("cancelled")
  /// }
  /// ```
  public var settled: Outcome<Value, Failure> {
    get async {
      if let outcome { return outcome }
      let waiter = OutcomeWaiter<Value, Failure>()
      register(.always { outcome in waiter.deliver(outcome) }, addingDemand: true)
      return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          waiter.wait(continuation)
        }
      } onCancel: {
        if waiter.deliver(.cancelled) {
          self.withdrawDemand()
        }
      }
    }
  }
}

extension Future where Failure: CancellableFailure {
  /// The value, once the future succeeds; throws its error if it fails and `Failure.cancelled` if it is
  /// cancelled or the awaiting task is.
  ///
  /// Cancelling the awaiting task stops the wait at once and cancels the future unless something else still
  /// waits on it (see ``settled``). A future that has already settled reports its outcome even to a cancelled
  /// task.
  ///
  /// ```swift
  /// let state = try await controller.send(.pause).value   // throws(PlayerError)
  /// ```
  public var value: Value {
    get async throws(Failure) {
      try await settled.get()
    }
  }
}

extension Future where Failure == Never {
  /// The value, once the future succeeds; throws `CancellationError` if it is cancelled or the awaiting task
  /// is.
  ///
  /// Cancelling the awaiting task stops the wait at once and cancels the future unless something else still
  /// waits on it (see ``settled``).
  public var value: Value {
    get async throws(CancellationError) {
      switch await settled {
      case .success(let value): return value
      case .cancelled: throw CancellationError()
      }
    }
  }
}

extension Future where Failure == any Error {
  /// The value, once the future succeeds; throws its error if it fails, and `CancellationError` if it is
  /// cancelled or the awaiting task is.
  ///
  /// Cancelling the awaiting task stops the wait at once and cancels the future unless something else still
  /// waits on it (see ``settled``).
  public var value: Value {
    get async throws {
      switch await settled {
      case .success(let value): return value
      case .failure(let error): throw error
      case .cancelled: throw CancellationError()
      }
    }
  }
}
