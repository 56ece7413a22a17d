import Dispatch
import Futures
import Testing

@Suite("Tokens")
struct TokenTests {
  @Test("one cancellation source cancels many futures, once")
  func sourceCancelsMany() {
    let source = CancellationSource()
    let pairs = (0..<3).map { _ in Future<Int, TestError>.pending() }
    let stopped = Counter()
    for (future, resolver) in pairs {
      resolver.onCancel { stopped.increment() }
      future.cancel(when: source.token)
    }
    let (finished, finishedResolver) = Future<Int, TestError>.pending()
    finished.cancel(when: source.token)
    finishedResolver.resolve(1)

    #expect(!source.token.isCancelled)
    #expect(source.cancel())
    #expect(!source.cancel())
    #expect(source.isCancelled && source.token.isCancelled)
    #expect(pairs.allSatisfy { $0.future.outcome == .cancelled })
    #expect(stopped.value == 3)
    #expect(finished.outcome == .success(1))

    // Binding to a token that is already cancelled cancels at once.
    let (late, lateResolver) = Future<Int, TestError>.pending()
    #expect(late.outcome == nil)
    late.cancel(when: source.token)
    #expect(late.outcome == .cancelled)
    withExtendedLifetime(lateResolver) {}
  }

  @Test("token handlers run in registration order, or at once once cancelled")
  func tokenHandlers() {
    let source = CancellationSource()
    let order = Recorder<Int>()
    source.token.onCancel { order.record(1) }
    source.token.onCancel { order.record(2) }
    source.cancel()
    source.token.onCancel { order.record(3) }
    #expect(order.all == [1, 2, 3])
    #expect(!CancellationToken.never.isCancelled)
  }

  @Test("a bound future is released from the token once it settles")
  func bindingReleasedOnSettle() {
    let source = CancellationSource()
    weak var weakFuture: Future<Int, TestError>?
    do {
      let (future, resolver) = Future<Int, TestError>.pending()
      future.cancel(when: source.token)
      weakFuture = future
      resolver.resolve(1)
    }
    #expect(weakFuture == nil)
    _ = source
  }

  @Test("a source released without cancelling retires its token and drops its handlers")
  func sourceReleasedRetiresToken() {
    weak var captured: Tracked?
    var token = CancellationToken.never
    do {
      let source = CancellationSource()
      token = source.token
      let tracked = Tracked()
      captured = tracked
      token.onCancel { _ = tracked }
    }
    #expect(captured == nil)
    #expect(!token.isCancelled)
    let ran = Counter()
    token.onCancel { ran.increment() }
    #expect(ran.value == 0)
  }

  @Test("an invalidation token drops callbacks but not the work")
  func invalidationDropsCallbacksOnly() {
    let token = InvalidationToken()
    let (future, resolver) = Future<Int, TestError>.pending()
    let seen = Recorder<String>()
    future.whenSuccess(token.wrap { _ in seen.record("ui") })
    future.onCancel(token.wrap { seen.record("ui cancel") })
    future.whenSuccess { _ in seen.record("model") }
    #expect(token.isValid)
    token.invalidate()
    #expect(!token.isValid)
    resolver.resolve(1)
    #expect(future.outcome == .success(1))
    #expect(seen.all == ["model"])
  }

  @Test("invalidation is checked when the callback runs on its executor")
  func invalidationCheckedOnExecutor() {
    let token = InvalidationToken()
    let jobs = Recorder<@Sendable () -> Void>()
    let queued = ExecutionContext { job in jobs.record(job) }
    let seen = Counter()
    Future<Int, TestError>.resolved(1).whenSuccess(on: queued, token.wrap { _ in seen.increment() })
    #expect(jobs.all.count == 1)
    token.invalidate()
    for job in jobs.all { job() }
    #expect(seen.value == 0)
  }
}
