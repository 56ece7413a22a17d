import Futures
import Testing

@Suite("Combinators")
struct CombinatorTests {
  @Test("map transforms values and passes failures and cancellation through")
  func map() {
    #expect(Future<Int, TestError>.resolved(1).map { "\($0)" }.outcome == .success("1"))
    #expect(Future<Int, TestError>.rejected(.boom).map { $0 + 1 }.outcome == .failure(.boom))
    #expect(Future<Int, TestError>.cancelled().map { $0 + 1 }.outcome == .cancelled)
  }

  @Test("tryMap fails the new future with the thrown error")
  func tryMap() {
    let checked = Future<Int, TestError>.resolved(-1).tryMap { value throws(TestError) -> Int in
      guard value >= 0 else { throw .other }
      return value
    }
    #expect(checked.outcome == .failure(.other))
    #expect(Future<Int, TestError>.resolved(2).tryMap { $0 * 2 }.outcome == .success(4))
  }

  @Test("flatMap collapses: the result settles like the inner future, which it waits on")
  func flatMapCollapses() {
    let (outer, outerResolver) = Future<Int, TestError>.pending()
    let (inner, innerResolver) = Future<String, TestError>.pending()
    let flat: Future<String, TestError> = outer.flatMap { _ in inner }
    outerResolver.resolve(1)
    #expect(flat.outcome == nil)
    innerResolver.resolve("done")
    #expect(flat.outcome == .success("done"))

    #expect(
      Future<Int, TestError>.resolved(1).flatMap { _ in Future<Int, TestError>.rejected(.boom) }.outcome
        == .failure(.boom))
    let transforms = Counter()
    let skipped = Future<Int, TestError>.rejected(.other).flatMap { value -> Future<Int, TestError> in
      transforms.increment()
      return .resolved(value)
    }
    #expect(skipped.outcome == .failure(.other))
    #expect(transforms.value == 0)
  }

  @Test("cancelling a flatMap that waits on its inner future cancels the inner future's work")
  func flatMapCancelReachesInner() {
    let (source, sourceResolver) = Future<Int, TestError>.pending()
    let innerStopped = Counter()
    let flat = source.flatMap { _ in
      Future<Int, TestError> { resolver in
        resolver.onCancel { innerStopped.increment() }
        // Keep the resolver alive the way real work would, until it is cancelled.
        keepAlive.record(resolver)
      }
    }
    sourceResolver.resolve(1)
    #expect(flat.cancel())
    #expect(innerStopped.value == 1)
    #expect(source.outcome == .success(1))
    keepAlive.clearAll()
  }

  @Test("a flatMap cancelled before its source resolves does not start the next step")
  func flatMapSkipsUnwantedStep() {
    let (source, sourceResolver) = Future<Int, TestError>.pending()
    let other = source.map { $0 }
    let started = Counter()
    let flat = source.flatMap { value -> Future<Int, TestError> in
      started.increment()
      return .resolved(value)
    }
    flat.cancel()
    sourceResolver.resolve(1)
    #expect(started.value == 0)
    #expect(other.outcome == .success(1))
  }

  @Test("mapError transforms errors only")
  func mapError() {
    let mapped: Future<Int, WrappedError> = Future<Int, TestError>.rejected(.boom).mapError { WrappedError(inner: $0) }
    #expect(mapped.outcome == .failure(WrappedError(inner: .boom)))
    #expect(Future<Int, TestError>.resolved(1).mapError { WrappedError(inner: $0) }.outcome == .success(1))
    #expect(Future<Int, TestError>.cancelled().mapError { WrappedError(inner: $0) }.outcome == .cancelled)
  }

  @Test("recover to a value yields a future that cannot fail; cancellation stays")
  func recoverToValue() {
    let recovered: Future<Int, Never> = Future<Int, TestError>.rejected(.boom).recover { _ in 0 }
    #expect(recovered.outcome == .success(0))
    #expect(Future<Int, TestError>.resolved(1).recover { _ in 0 }.outcome == .success(1))
    #expect(Future<Int, TestError>.cancelled().recover { _ in 0 }.outcome == .cancelled)
  }

  @Test("flatMapError collapses, and may change the error type")
  func flatMapErrorFollowsTheFallback() {
    let (fallback, fallbackResolver) = Future<Int, WrappedError>.pending()
    let recovered: Future<Int, WrappedError> = Future<Int, TestError>.rejected(.boom).flatMapError { _ in fallback }
    #expect(recovered.outcome == nil)
    fallbackResolver.resolve(9)
    #expect(recovered.outcome == .success(9))
    let passed = Future<Int, TestError>.resolved(1).flatMapError { _ in Future<Int, WrappedError>.resolved(0) }
    #expect(passed.outcome == .success(1))
  }

  @Test("zip pairs values, fails fast and cancels the other input")
  func zip() {
    let (left, leftResolver) = Future<Int, TestError>.pending()
    let (right, rightResolver) = Future<String, TestError>.pending()
    let zipped = left.zip(right)
    rightResolver.resolve("r")
    #expect(zipped.outcome == nil)
    leftResolver.resolve(1)
    #expect(zipped.outcome?.value.map { $0 == 1 && $1 == "r" } == true)

    let (pending, pendingResolver) = Future<String, TestError>.pending()
    let stopped = Counter()
    pendingResolver.onCancel { stopped.increment() }
    let failed = Future<Int, TestError>.rejected(.boom).zip(pending)
    #expect(failed.outcome?.error == .boom)
    #expect(pending.outcome == .cancelled)
    #expect(stopped.value == 1)
    withExtendedLifetime(pendingResolver) {}
  }

  @Test("all keeps input order, fails fast, cancels the rest, and is cancelled by a cancelled input")
  func all() {
    let pairs = (0..<5).map { _ in Future<Int, TestError>.pending() }
    let all = Future.all(pairs.map(\.future))
    for index in [3, 1, 4, 0, 2] {
      pairs[index].resolver.resolve(index * 10)
    }
    #expect(all.outcome == .success([0, 10, 20, 30, 40]))
    #expect(Future<Int, TestError>.all([]).outcome == .success([]))

    let (slow, slowResolver) = Future<Int, TestError>.pending()
    let stopped = Counter()
    slowResolver.onCancel { stopped.increment() }
    let failing = Future.all([slow, .rejected(.boom)])
    #expect(failing.outcome == .failure(.boom))
    #expect(slow.outcome == .cancelled)
    #expect(stopped.value == 1)
    withExtendedLifetime(slowResolver) {}

    let (other, otherResolver) = Future<Int, TestError>.pending()
    let cancelled = Future.all([other, .cancelled()])
    #expect(cancelled.outcome == .cancelled)
    #expect(other.outcome == .cancelled)

    let (input, inputResolver) = Future<Int, TestError>.pending()
    let waiting = Future.all([input])
    #expect(input.outcome == nil)
    waiting.cancel()
    #expect(input.outcome == .cancelled)
    withExtendedLifetime((otherResolver, inputResolver)) {}
  }

  @Test("allSettled reports every outcome in input order and never fails")
  func allSettled() {
    let (pending, resolver) = Future<Int, TestError>.pending()
    let settled = Future.allSettled([.rejected(.boom), pending, .cancelled(), .resolved(1)])
    #expect(settled.outcome == nil)
    resolver.resolve(2)
    #expect(settled.outcome == .success([.failure(.boom), .success(2), .cancelled, .success(1)]))
    #expect(Future<Int, TestError>.allSettled([]).outcome == .success([]))
  }

  @Test("race: the first success or failure wins and losers are cancelled; cancelled inputs drop out")
  func race() {
    let (a, aResolver) = Future<Int, TestError>.pending()
    let (b, bResolver) = Future<Int, TestError>.pending()
    let stopped = Counter()
    aResolver.onCancel { stopped.increment() }
    let raced = Future.race([a, b])
    bResolver.reject(.boom)
    #expect(raced.outcome == .failure(.boom))
    #expect(a.outcome == .cancelled)
    #expect(stopped.value == 1)
    withExtendedLifetime(aResolver) {}

    let (c, cResolver) = Future<Int, TestError>.pending()
    let withCancelled = Future.race([.cancelled(), c])
    #expect(withCancelled.outcome == nil)
    cResolver.resolve(3)
    #expect(withCancelled.outcome == .success(3))

    #expect(Future.race([Future<Int, TestError>.cancelled(), .cancelled()]).outcome == .cancelled)
    #expect(Future<Int, TestError>.race([]).outcome == .cancelled)

    // A loser that something else still waits on keeps running.
    let (shared, sharedResolver) = Future<Int, TestError>.pending()
    let otherUse = shared.map { $0 }
    #expect(Future.race([shared, .resolved(0)]).outcome == .success(0))
    #expect(shared.outcome == nil)
    #expect(otherUse.outcome == nil)
    withExtendedLifetime(sharedResolver) {}
  }

  @Test("fold combines in input order; traverse maps and collects in linear time")
  func foldAndTraverse() async {
    let (late, resolver) = Future<String, TestError>.pending()
    let folded = Future.fold([.resolved("a"), late, .resolved("c")], into: "") { $0 + $1 }
    resolver.resolve("b")
    #expect(folded.outcome == .success("abc"))

    let count = 100_000
    let values = await onDedicatedThread {
      Future<Int, TestError>.traverse(0..<count) { Future.resolved($0 * 2) }.outcome?.value
    }
    #expect(values?.count == count)
    #expect(values?.last == (count - 1) * 2)
  }

  @Test("finally runs its body before the chain goes on, on every outcome")
  func finally() {
    let order = Recorder<String>()
    let (future, resolver) = Future<Int, TestError>.pending()
    let after = future.finally { order.record("cleanup") }
    after.whenSuccess { _ in order.record("next") }
    resolver.resolve(1)
    #expect(order.all == ["cleanup", "next"])
    #expect(after.outcome == .success(1))

    let cleanups = Counter()
    #expect(Future<Int, TestError>.rejected(.boom).finally { cleanups.increment() }.outcome == .failure(.boom))
    // Cancelling the chain cancels the source, and the cleanup still runs.
    let (source, sourceResolver) = Future<Int, TestError>.pending()
    let guarded = source.finally { cleanups.increment() }
    #expect(source.outcome == nil)
    guarded.cancel()
    #expect(source.outcome == .cancelled)
    #expect(cleanups.value == 2)
    withExtendedLifetime(sourceResolver) {}
  }

  @Test("promoteError lets a future that cannot fail join a failing chain")
  func promoteError() {
    let (future, resolver) = Future<Int, Never>.pending()
    let promoted: Future<Int, TestError> = future.promoteError()
    let chained = promoted.flatMap { _ in Future<Int, TestError>.rejected(.boom) }
    resolver.resolve(1)
    #expect(promoted.outcome == .success(1))
    #expect(chained.outcome == .failure(.boom))
    let cancelled = Future<Int, Never>.cancelled().promoteError(to: TestError.self)
    #expect(cancelled.outcome == .cancelled)
  }

  @Test("Resolver conveniences: resolve() for Void, settle(with:)")
  func resolverConveniences() {
    let (done, doneResolver) = Future<Void, Never>.pending()
    #expect(doneResolver.resolve())
    #expect(done.outcome?.value != nil)

    for outcome: Outcome<Int, TestError> in [.success(1), .failure(.boom), .cancelled] {
      let (future, resolver) = Future<Int, TestError>.pending()
      #expect(resolver.settle(with: outcome))
      #expect(!resolver.settle(with: outcome))
      #expect(future.outcome == outcome)
    }
  }
}

/// Resolvers kept alive on purpose by tests, like real work would keep them.
let keepAlive = Recorder<Future<Int, TestError>.Resolver>()

struct WrappedError: Error, Equatable {
  var inner: TestError
}
