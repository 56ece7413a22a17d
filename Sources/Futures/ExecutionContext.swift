import Dispatch

/// Where an observer callback runs.
///
/// Every observer method (``Future/whenSuccess(on:_:)`` and friends) takes an executor, and it defaults to
/// ``immediate``: the callback runs on the thread that settles the future (or that registers the callback,
/// when the future has already settled), before that library call returns. There is deliberately no
/// global default to change: where a callback runs is visible at the call site. Nothing here assumes a main
/// thread.
///
/// ```swift
/// command.whenSuccess(on: .queue(uiQueue)) { state in view.render(state) }
/// command.whenSuccess(on: .mainActor) { state in MainActor.assumeIsolated { model.state = state } }
/// command.whenSuccess(on: ExecutionContext { job in loop.execute(job) }) { state in log(state) }
/// ```
///
/// Callbacks are handed to their executor in registration order; a serial executor therefore runs them
/// in that order too.
public struct ExecutionContext: Sendable {
  private enum Kind: Sendable {
    case immediate
    case queue(DispatchQueue)
    case custom(@Sendable (_ job: @escaping @Sendable () -> Void) -> Void)
  }

  private let kind: Kind

  private init(kind: Kind) {
    self.kind = kind
  }

  /// Creates an executor from a function that runs (or schedules) the jobs handed to it.
  ///
  /// The function must run every job exactly once; it may run it synchronously.
  public init(_ execute: @escaping @Sendable (_ job: @escaping @Sendable () -> Void) -> Void) {
    self.kind = .custom(execute)
  }

  /// Runs callbacks on the settling (or registering) thread, before the library call returns.
  ///
  /// One exception keeps a future's callbacks in registration order: a callback registered while another
  /// thread is running that future's callbacks is run by that thread, right after the ones before it.
  /// Keep such callbacks short: they run while the library drains the callbacks of the futures that this
  /// settlement completes.
  public static let immediate = ExecutionContext(kind: .immediate)

  /// Runs callbacks asynchronously on a dispatch queue.
  public static func queue(_ queue: DispatchQueue) -> ExecutionContext {
    ExecutionContext(kind: .queue(queue))
  }

  /// Runs callbacks on the main actor, through a `Task` isolated to it.
  ///
  /// The callback itself is not `@MainActor`; use `MainActor.assumeIsolated` inside it to touch main-actor
  /// state. On Linux the main actor only runs jobs while something services it (an `async` main, or
  /// `dispatchMain()`); the library never relies on it.
  public static let mainActor = ExecutionContext { job in
    Task { @MainActor in job() }
  }

  /// Runs a job on this executor.
  public func execute(_ job: @escaping @Sendable () -> Void) {
    switch kind {
    case .immediate: job()
    case .queue(let queue): queue.async(execute: job)
    case .custom(let execute): execute(job)
    }
  }

  /// Whether callbacks can be stored as they are, without a hop.
  @usableFromInline
  var isImmediate: Bool {
    if case .immediate = kind { return true }
    return false
  }
}
