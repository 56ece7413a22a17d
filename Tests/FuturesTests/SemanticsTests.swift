import Dispatch
import Futures
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One test per numbered semantic point of the Futures contract (issue 3).
///
/// The limit catches a hang, not slowness: under ThreadSanitizer (`make tsan`), on two cores shared with the
/// stack-safety suite, a million-step chain took four minutes (4a's chain is ``StackSafetyTests/length`` long).
@Suite("Semantics", .timeLimit(.minutes(5)))
struct SemanticsTests {
  @Test("1. settles exactly once: the first of resolve, reject and cancel wins")
  func settlesExactlyOnce() {
    let (resolved, resolvedBy) = Future<Int, TestError>.pending()
    #expect(resolvedBy.resolve(1))
    #expect(!resolvedBy.resolve(2))
    #expect(!resolvedBy.reject(.boom))
    #expect(!resolved.cancel())
    #expect(!resolvedBy.settle(with: .cancelled))
    #expect(resolved.outcome == .success(1))

    let (rejected, rejectedBy) = Future<Int, TestError>.pending()
    #expect(rejectedBy.reject(.boom))
    #expect(!rejectedBy.resolve(1))
    #expect(!rejected.cancel())
    #expect(rejected.outcome == .failure(.boom))

    let (cancelled, cancelledBy) = Future<Int, TestError>.pending()
    #expect(cancelled.cancel())
    #expect(!cancelled.cancel())
    #expect(!cancelledBy.resolve(1))
    #expect(!cancelledBy.reject(.boom))
    #expect(cancelled.outcome == .cancelled)
    #expect(cancelledBy.isCancelled)

    // The callbacks saw one outcome each, once.
    let seen = Recorder<Outcome<Int, TestError>>()
    let (observed, observedBy) = Future<Int, TestError>.pending()
    observed.whenComplete { seen.record($0) }
    observedBy.resolve(7)
    observedBy.reject(.boom)
    observed.cancel()
    #expect(seen.all == [.success(7)])
  }

  @Test("2. every callback runs exactly once, in registration order, including late registrations")
  func callbacksRunInRegistrationOrder() {
    let order = Recorder<String>()
    let (future, resolver) = Future<Int, TestError>.pending()
    let other = Future<Int, TestError>.resolved(0)

    future.whenSuccess { _ in
      order.record("A")
      // Registered on this future while it settles: runs after everything registered before it.
      future.whenSuccess { _ in order.record("F") }
      // Registered on another, settled future from inside a callback: right after this callback returns.
      other.whenSuccess { _ in order.record("G") }
      order.record("A-end")
    }
    future.whenComplete { _ in order.record("B") }
    future.whenFailure { _ in order.record("never: catch") }
    future.onCancel { order.record("never: onCancel") }
    future.whenSuccess { _ in order.record("E") }

    #expect(resolver.resolve(1))
    // Everything ran before the outermost call returned.
    #expect(order.all == ["A", "A-end", "G", "B", "E", "F"])

    // Registered after settling, from outside any callback: runs before `whenSuccess` returns.
    future.whenSuccess { _ in order.record("H") }
    #expect(order.all.last == "H")

    // Each observer kind runs only for its outcomes.
    let kinds = Recorder<String>()
    let (failing, failingBy) = Future<Int, TestError>.pending()
    failing.whenSuccess { _ in kinds.record("then") }.whenFailure { _ in kinds.record("catch") }
      .onCancel { kinds.record("onCancel") }.whenComplete { _ in kinds.record("always") }
    failingBy.reject(.boom)
    let (cancelled, cancelledResolver) = Future<Int, TestError>.pending()
    cancelled.whenSuccess { _ in kinds.record("then") }.whenFailure { _ in kinds.record("catch") }
      .onCancel { kinds.record("onCancel") }.whenComplete { _ in kinds.record("always") }
    #expect(cancelled.cancel())
    withExtendedLifetime(cancelledResolver) {}
    #expect(kinds.all == ["catch", "always", "onCancel", "always"])
  }

  @Test("2b. map on a settled future runs its transform in place, as that future's callback")
  func mapOnASettledFutureRunsAsACallback() {
    let order = Recorder<String>()
    let settled = Future<Int, TestError>.resolved(1)

    // Outside any callback: the transform has run and the new future has settled before `map` returns.
    let doubled = settled.map { value -> Int in
      order.record("transform")
      return value * 2
    }
    #expect(order.all == ["transform"])
    #expect(doubled.outcome == .success(2))

    // What the transform settles runs once the transform has returned, as after any callback.
    let (other, otherResolver) = Future<Int, TestError>.pending()
    other.whenSuccess { _ in order.record("settled by the transform") }
    _ = settled.map { value -> Int in
      otherResolver.resolve(value)
      order.record("transform returns")
      return value
    }
    #expect(order.all.suffix(2) == ["transform returns", "settled by the transform"])

    // A callback another thread registers on the same future while the transform runs waits behind it.
    _ = settled.map { value -> Int in
      let group = DispatchGroup()
      DispatchQueue.global().async(group: group) {
        settled.whenSuccess { _ in order.record("registered by another thread") }
      }
      group.wait()
      order.record("second transform returns")
      return value
    }
    #expect(order.all.suffix(2) == ["second transform returns", "registered by another thread"])

    // From inside another callback: right after that callback returns.
    let (outer, outerResolver) = Future<Int, TestError>.pending()
    outer.whenSuccess { _ in
      _ = settled.map { value -> Int in
        order.record("nested transform")
        return value
      }
      order.record("outer callback returns")
    }
    outerResolver.resolve(0)
    #expect(order.all.suffix(2) == ["outer callback returns", "nested transform"])

    // Failure and cancellation pass through without running the transform.
    #expect(Future<Int, TestError>.rejected(.boom).map { $0 + 1 }.outcome == .failure(.boom))
    #expect(Future<Int, TestError>.cancelled().map { $0 + 1 }.outcome == .cancelled)
  }

  @Test("3. no user code runs under the lock: callbacks may register, settle and cancel freely")
  func callbacksMayReenter() async {
    let (future, resolver) = Future<Int, TestError>.pending()
    let (second, secondResolver) = Future<Int, TestError>.pending()
    let log = Recorder<String>()
    let derived = future.map { $0 + 1 }

    future.whenSuccess { value in
      // Read the state, register on the same future, cancel it (too late), settle another future whose
      // callbacks come back to this one, and cancel a derived future: all from inside a callback.
      #expect(future.outcome == .success(value))
      #expect(future.isSettled)
      #expect(!future.cancel())
      future.whenComplete { _ in log.record("same future, nested") }
      second.whenSuccess { _ in
        future.whenSuccess { _ in log.record("back to the first") }
        log.record("second")
      }
      #expect(secondResolver.resolve(value))
      #expect(!derived.cancel())
      log.record("first")
    }
    // A callback that drops the last reference to another pending future's resolver.
    let holder = Mutex<Future<Int, TestError>.Resolver?>(nil)
    let abandoned: Future<Int, TestError> = {
      let (future, resolver) = Future<Int, TestError>.pending()
      holder.withLock { $0 = resolver }
      return future
    }()
    future.whenSuccess { _ in holder.withLock { $0 = nil } }
    UnresolvedReports.install()

    #expect(resolver.resolve(1))
    #expect(log.all == ["first", "second", "same future, nested", "back to the first"])
    #expect(second.outcome == .success(1))
    #expect(derived.outcome == .success(2))
    #expect(abandoned.outcome == .cancelled)
  }

  @Test("4a. stack safe: resolving the root of a long map chain")
  func stackSafeMapChain() async {
    let outcome = await onDedicatedThread {
      let (root, resolver) = Future<Int, TestError>.pending()
      var chain = root
      for _ in 0..<StackSafetyTests.length {
        chain = chain.map { $0 + 1 }
      }
      resolver.resolve(0)
      return chain.outcome
    }
    #expect(outcome == .success(StackSafetyTests.length))
  }

  @Test("4b. stack safe: a 100,000-deep recursive flatMap")
  func stackSafeRecursiveFlatMap() async {
    @Sendable func countDown(_ n: Int) -> Future<Int, TestError> {
      n == 0 ? .resolved(0) : Future.resolved(n).flatMap { countDown($0 - 1) }.map { $0 + 1 }
    }
    #expect(await onDedicatedThread { countDown(100_000).outcome } == .success(100_000))
  }

  @Test("5. callbacks are released once settled; an abandoned future is cancelled and reported once")
  func releaseAndAbandonment() {
    UnresolvedReports.install()
    weak var captured: Tracked?
    let (future, resolver) = Future<Int, TestError>.pending()
    do {
      let tracked = Tracked()
      captured = tracked
      future.whenSuccess { _ in _ = tracked }
      future.whenFailure { _ in _ = tracked }
    }
    #expect(captured != nil)
    resolver.resolve(1)
    #expect(captured == nil, "callbacks must be released when the future settles")

    let outcomes = Recorder<String>()
    weak var weakResolver: Future<Int, TestError>.Resolver?
    weak var releasedWithThen: Tracked?
    let creationLine = #line + 2
    let abandoned: Future<Int, TestError> = {
      let (future, resolver) = Future<Int, TestError>.pending()
      weakResolver = resolver
      let tracked = Tracked()
      releasedWithThen = tracked
      future.whenSuccess { _ in _ = tracked }
      future.onCancel { outcomes.record("onCancel") }
      future.whenComplete { outcomes.record("always \($0.isCancelled)") }
      return future
    }()
    #expect(weakResolver == nil, "the future must not keep its resolver alive")
    #expect(abandoned.outcome == .cancelled)
    #expect(outcomes.all == ["onCancel", "always true"])
    #expect(releasedWithThen == nil)
    #expect(UnresolvedReports.reports(line: creationLine).count == 1)
  }

  @Test("6. cancellation reaches the work, through derived futures, timeouts and races")
  func cancellationPropagates() async {
    // cancel() runs the resolver's onCancel handlers.
    let stopped = Counter()
    let (work, workResolver) = Future<Int, TestError>.pending()
    workResolver.onCancel { stopped.increment() }
    #expect(work.cancel())
    #expect(stopped.value == 1)

    // A derived future that is its source's only waiter cancels the source.
    let (source, sourceResolver) = Future<Int, TestError>.pending()
    sourceResolver.onCancel { stopped.increment() }
    let step = source.map { $0 * 2 }.flatMap { Future.resolved($0) }
    #expect(step.cancel())
    #expect(source.outcome == .cancelled)
    #expect(stopped.value == 2)

    // ... but not while another derived future still waits on it.
    let (shared, sharedResolver) = Future<Int, TestError>.pending()
    let first = shared.map { $0 }
    let second = shared.map { $0 + 1 }
    first.cancel()
    #expect(shared.outcome == nil)
    sharedResolver.resolve(1)
    #expect(second.outcome == .success(2))

    // timeout cancels what it abandons.
    let clock = TestClock()
    let (slow, slowResolver) = Future<Int, TestError>.pending()
    slowResolver.onCancel { stopped.increment() }
    let timed = slow.timeout(.seconds(1), clock: clock, error: .timedOut)
    clock.advance(by: .seconds(1))
    #expect(await timed.settled == .failure(.timedOut))
    #expect(slow.outcome == .cancelled)

    // race cancels the losers.
    let (winner, winnerResolver) = Future<Int, TestError>.pending()
    let (loser, loserResolver) = Future<Int, TestError>.pending()
    loserResolver.onCancel { stopped.increment() }
    let race = Future.race([winner, loser])
    winnerResolver.resolve(1)
    #expect(race.outcome == .success(1))
    #expect(loser.outcome == .cancelled)
    #expect(stopped.value == 4)
    withExtendedLifetime((workResolver, sourceResolver, slowResolver, loserResolver)) {}
  }

  @Test("7. async bridge: resumes once, task cancellation stops the wait, Future { } owns its task")
  func asyncBridge() async throws {
    let (future, resolver) = Future<Int, CancellableTestError>.pending()
    async let value = future.value
    #expect(await untilAwaited(future, by: 1))
    resolver.resolve(42)
    #expect(try await value == 42)

    // Cancelling the awaiting task stops the wait and cancels the future it was the only waiter of.
    let (never, neverResolver) = Future<Int, CancellableTestError>.pending()
    let waiting = Task { await never.settled }
    #expect(await untilAwaited(never, by: 1))
    waiting.cancel()
    #expect(await waiting.value == .cancelled)
    #expect(never.outcome == .cancelled)
    #expect(neverResolver.isCancelled)

    // Future { } owns a task that cancel() cancels.
    let observedCancellation = Counter()
    let started = Counter()
    let owned = Future<Int, CancellableTestError> { () async throws(CancellableTestError) -> Int in
      started.increment()
      do {
        try await Task.sleep(for: .seconds(60))
      } catch {
        observedCancellation.increment()
        throw .cancelled
      }
      return 1
    }
    #expect(await eventually { started.value == 1 })
    owned.cancel()
    #expect(await eventually { observedCancellation.value == 1 })
    #expect(owned.outcome == .cancelled)
  }

  @Test("8. nothing blocks and nothing needs the main thread")
  func nothingBlocks() async {
    let (future, resolver) = Future<Int, TestError>.pending()
    let clock = TestClock()
    let returned = Counter()
    // Every call on a pending future returns at once, on a thread that is not the main thread.
    DispatchQueue.global().async {
      _ = future.map { $0 }.flatMap { .resolved($0) }.timeout(.seconds(1), clock: clock, error: .timedOut)
      _ = future.delay(.seconds(1), clock: clock)
      _ = Future.all([future, future])
      future.whenSuccess { _ in }
      returned.increment()
    }
    #expect(await eventually { returned.value == 1 })
    #expect(future.outcome == nil)

    // Callbacks on the default executor run on the settling thread, whichever it is.
    let settlingThread = Mutex<pthread_t?>(nil)
    let callbackThread = Mutex<pthread_t?>(nil)
    future.whenSuccess { _ in callbackThread.withLock { $0 = pthread_self() } }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue(label: "settler").async {
        settlingThread.withLock { $0 = pthread_self() }
        resolver.resolve(1)
        continuation.resume()
      }
    }
    let settler = settlingThread.withLock { $0 }
    let runner = callbackThread.withLock { $0 }
    #expect(settler != nil && runner != nil && pthread_equal(settler!, runner!) != 0)
  }
}
