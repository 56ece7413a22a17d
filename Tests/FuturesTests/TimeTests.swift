import Futures
import Testing

/// `timeout`, `delay` and `retry`, driven by a manual clock.
@Suite("Time")
struct TimeTests {
  @Test("timeout passes the outcome through when the source settles in time, and stops its timer")
  func timeoutInTime() async {
    let clock = TestClock()
    let (source, resolver) = Future<Int, TestError>.pending()
    let timed = source.timeout(.seconds(5), clock: clock, error: .timedOut)
    #expect(await eventually { clock.sleeperCount == 1 })
    resolver.resolve(1)
    #expect(timed.outcome == .success(1))
    #expect(await eventually { clock.sleeperCount == 0 }, "the timer task must be cancelled")
    clock.advance(by: .seconds(10))
    #expect(timed.outcome == .success(1))
  }

  @Test("timeout fails with the error when time is up and cancels the abandoned source")
  func timeoutFires() async {
    let clock = TestClock()
    let (source, resolver) = Future<Int, TestError>.pending()
    let stopped = Counter()
    resolver.onCancel { stopped.increment() }
    let timed = source.timeout(.seconds(2), clock: clock, error: .timedOut)
    clock.advance(by: .seconds(1))
    try? await Task.sleep(for: .milliseconds(20))
    #expect(timed.outcome == nil)
    clock.advance(by: .seconds(1))
    #expect(await timed.settled == .failure(.timedOut))
    #expect(source.outcome == .cancelled)
    #expect(stopped.value == 1)
    withExtendedLifetime(resolver) {}
  }

  @Test("timeout leaves a source running that something else still waits on")
  func timeoutSparesSharedSource() async {
    let clock = TestClock()
    let (source, resolver) = Future<Int, TestError>.pending()
    let otherUse = source.map { $0 }
    let timed = source.timeout(.seconds(1), clock: clock, error: .timedOut)
    clock.advance(by: .seconds(1))
    #expect(await timed.settled == .failure(.timedOut))
    #expect(source.outcome == nil)
    resolver.resolve(2)
    #expect(otherUse.outcome == .success(2))
  }

  @Test("cancelling a timed future cancels its source and its timer")
  func cancelTimedFuture() async {
    let clock = TestClock()
    let (source, resolver) = Future<Int, TestError>.pending()
    let timed = source.timeout(.seconds(1), clock: clock, error: .timedOut)
    #expect(await eventually { clock.sleeperCount == 1 })
    #expect(source.outcome == nil)
    timed.cancel()
    #expect(source.outcome == .cancelled)
    #expect(await eventually { clock.sleeperCount == 0 })
    withExtendedLifetime(resolver) {}
  }

  @Test("a future that cannot fail times out by being cancelled")
  func timeoutOfNeverFailingFuture() async {
    let clock = TestClock()
    let (source, resolver) = Future<Int, Never>.pending()
    let timed = source.timeout(.seconds(1), clock: clock)
    #expect(source.outcome == nil)
    clock.advance(by: .seconds(1))
    #expect(await timed.settled == .cancelled)
    #expect(source.outcome == .cancelled)
    withExtendedLifetime(resolver) {}
  }

  @Test("timeout works on the real clock too")
  func timeoutOnContinuousClock() async {
    let (source, resolver) = Future<Int, TestError>.pending()
    #expect(await source.timeout(.milliseconds(20), error: .timedOut).settled == .failure(.timedOut))
    #expect(source.outcome == .cancelled)
    withExtendedLifetime(resolver) {}
  }

  @Test("delay settles with the value or error after the duration; cancellation is immediate")
  func delay() async {
    let clock = TestClock()
    let (source, resolver) = Future<Int, TestError>.pending()
    let delayed = source.delay(.seconds(3), clock: clock)
    resolver.resolve(1)
    try? await Task.sleep(for: .milliseconds(20))
    #expect(delayed.outcome == nil)
    clock.advance(by: .seconds(3))
    #expect(await delayed.settled == .success(1))

    let failing = Future<Int, TestError>.rejected(.boom).delay(.seconds(1), clock: clock)
    #expect(failing.outcome == nil)
    clock.advance(by: .seconds(1))
    #expect(await failing.settled == .failure(.boom))

    #expect(Future<Int, TestError>.cancelled().delay(.seconds(1), clock: clock).outcome == .cancelled)

    let waiting = Future<Int, TestError>.resolved(2).delay(.seconds(1), clock: clock)
    #expect(await eventually { clock.sleeperCount == 1 })
    waiting.cancel()
    #expect(await eventually { clock.sleeperCount == 0 }, "cancelling a delayed future stops its timer")
  }

  @Test("retry succeeds at once when the first attempt does")
  func retryFirstAttempt() async {
    let attempts = Recorder<Int>()
    let result = Future<Int, TestError>.retry(
      attempts: 3,
      initialTimeout: .seconds(1),
      clock: TestClock(),
      error: .timedOut
    ) { attempt in
      attempts.record(attempt)
      return .resolved(attempt)
    }
    #expect(await result.settled == .success(1))
    #expect(attempts.all == [1])
  }

  @Test("retry gives each attempt a longer timeout and cancels the attempts that time out")
  func retryGrowingTimeouts() async {
    let clock = TestClock()
    let attempts = Recorder<Int>()
    let abandoned = Counter()
    let resolvers = Recorder<Future<Int, TestError>.Resolver>()
    let result = Future<Int, TestError>.retry(
      attempts: 3,
      initialTimeout: .seconds(1),
      factor: 2,
      clock: clock,
      error: .timedOut
    ) { attempt in
      attempts.record(attempt)
      let (future, resolver) = Future<Int, TestError>.pending()
      resolver.onCancel { abandoned.increment() }
      resolvers.record(resolver)
      return future
    }
    #expect(attempts.all == [1])
    clock.advance(by: .seconds(1))
    #expect(await eventually { attempts.all == [1, 2] })
    #expect(abandoned.value == 1)
    // The second attempt has 2 s: 1.5 s is not enough to time it out.
    clock.advance(by: .milliseconds(1_500))
    try? await Task.sleep(for: .milliseconds(20))
    #expect(attempts.all == [1, 2])
    clock.advance(by: .milliseconds(500))
    #expect(await eventually { attempts.all == [1, 2, 3] })
    // The third attempt has 4 s; it succeeds in time.
    clock.advance(by: .seconds(3))
    resolvers.all[2].resolve(42)
    #expect(await result.settled == .success(42))
    #expect(abandoned.value == 2)
    resolvers.clearAll()
  }

  @Test("retry cancels an attempt that timed out before it starts the next one, as its docs say")
  func retryCancelsBeforeTheNextAttempt() async {
    let clock = TestClock()
    let events = Recorder<String>()
    let resolvers = Recorder<Future<Int, TestError>.Resolver>()
    let result = Future<Int, TestError>.retry(
      attempts: 3,
      initialTimeout: .seconds(1),
      factor: 1,
      clock: clock,
      error: .timedOut
    ) { attempt in
      events.record("start \(attempt)")
      let (future, resolver) = Future<Int, TestError>.pending()
      resolver.onCancel { events.record("cancel \(attempt)") }
      resolvers.record(resolver)
      return future
    }
    clock.advance(by: .seconds(1))
    #expect(await eventually { events.all.count == 3 })
    clock.advance(by: .seconds(1))
    #expect(await eventually { events.all.count == 5 })
    #expect(events.all == ["start 1", "cancel 1", "start 2", "cancel 2", "start 3"])
    resolvers.all[2].resolve(7)
    #expect(await result.settled == .success(7))
    resolvers.clearAll()
  }

  @Test("retry stops at an attempt's own failure")
  func retryStopsOnFailure() async {
    let attempts = Counter()
    let result = Future<Int, TestError>.retry(
      attempts: 5,
      initialTimeout: .seconds(1),
      clock: TestClock(),
      error: .timedOut
    ) { _ in
      attempts.increment()
      return .rejected(.boom)
    }
    #expect(await result.settled == .failure(.boom))
    #expect(attempts.value == 1)
  }

  @Test("retry fails with the timeout error once every attempt has timed out")
  func retryExhausted() async {
    let clock = TestClock()
    let attempts = Recorder<Int>()
    let resolvers = Recorder<Future<Int, TestError>.Resolver>()
    let result = Future<Int, TestError>.retry(
      attempts: 2,
      initialTimeout: .seconds(1),
      factor: 3,
      clock: clock,
      error: .timedOut
    ) { attempt in
      attempts.record(attempt)
      let (future, resolver) = Future<Int, TestError>.pending()
      resolvers.record(resolver)
      return future
    }
    clock.advance(by: .seconds(1))
    #expect(await eventually { attempts.all == [1, 2] })
    clock.advance(by: .seconds(3))
    #expect(await result.settled == .failure(.timedOut))
    #expect(attempts.all == [1, 2])
    resolvers.clearAll()
  }

  @Test("retry stops when an attempt is cancelled, and cancelling it cancels the attempt in flight")
  func retryAndCancellation() async {
    let clock = TestClock()
    let attempts = Counter()
    let stopped = Counter()
    let resolvers = Recorder<Future<Int, TestError>.Resolver>()
    let operation: @Sendable (Int) -> Future<Int, TestError> = { _ in
      attempts.increment()
      let (future, resolver) = Future<Int, TestError>.pending()
      resolver.onCancel { stopped.increment() }
      resolvers.record(resolver)
      return future
    }
    let first = Future.retry(
      attempts: 3, initialTimeout: .seconds(1), clock: clock, error: .timedOut, operation: operation)
    resolvers.all[0].settle(with: .cancelled)
    #expect(await first.settled == .cancelled)
    #expect(attempts.value == 1)

    let second = Future.retry(
      attempts: 3, initialTimeout: .seconds(1), clock: clock, error: .timedOut, operation: operation)
    second.cancel()
    #expect(stopped.value == 2)
    #expect(resolvers.all[1].isCancelled)
    resolvers.clearAll()
  }
}
