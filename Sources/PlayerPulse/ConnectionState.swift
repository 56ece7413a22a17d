import PlayerCore

/// The connection to the server: its context, and where it stands for those who wait for it (what asking for
/// it does, what the context's ready or failed state means). Decides; ``PulseOutput`` makes the context and
/// hands it in, and calls libpulse with it.
struct ConnectionState {
  /// Runs once connected (success) or once connecting failed, with the mainloop lock held.
  typealias Waiter = (Result<Void, PlayerError>) -> Void

  /// What a request for the connection does.
  enum Request: Equatable, Sendable {
    /// Connected: run the waiter now.
    case runNow
    /// Nothing under way: make a context and connect; the waiter waits.
    case connect
    /// A connection is under way: the waiter waits for it.
    case wait
  }

  /// What a context that failed or ended means.
  enum Failure: Equatable {
    /// It never became ready: those waiting for it fail.
    case connectFailed
    /// It was ready: the connection was lost.
    case lost
  }

  /// The context made for the connection, until it is torn down.
  private(set) var context: OpaquePointer?
  /// The context became ready and has not gone since.
  private(set) var isReady = false
  private var waiters: [Waiter] = []

  /// Asks for the connection; `waiter` is kept unless it runs now.
  mutating func request(_ waiter: @escaping Waiter) -> Request {
    if context != nil, isReady { return .runNow }
    waiters.append(waiter)
    return context != nil ? .wait : .connect
  }

  /// A context was made (or adopted) for the connection.
  mutating func made(_ context: OpaquePointer) { self.context = context }

  /// The context became ready: the waiters to run, taken out.
  mutating func becameReady() -> [Waiter] {
    isReady = true
    return takeWaiters()
  }

  /// The context failed or ended.
  func failure() -> Failure { isReady ? .lost : .connectFailed }

  /// The context is gone: the waiters to fail, taken out.
  mutating func disconnected() -> [Waiter] {
    context = nil
    isReady = false
    return takeWaiters()
  }

  private mutating func takeWaiters() -> [Waiter] {
    defer { waiters = [] }
    return waiters
  }
}
