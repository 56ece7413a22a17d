import Futures
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Long chains on every path: each of these would overflow the stack if any step recursed. They run on a
/// dedicated thread with an ordinary 8 MiB stack.
@Suite("Stack safety", .serialized)
struct StackSafetyTests {
  /// A million steps; a tenth of that under a sanitizer (`SPLAY_SANITIZER`), where the million-step chains took
  /// 390 s of `make tsan` and a recursing step would still overflow the stack long before 100,000.
  static let length = getenv("SPLAY_SANITIZER") == nil ? 1_000_000 : 100_000
  static let depth = 100_000

  @Test("a long map chain, failure path")
  func mapChainFailure() async {
    let (outcome, transformed) = await onDedicatedThread {
      let (root, resolver) = Future<Int, TestError>.pending()
      let transformed = Counter()
      var chain = root
      for _ in 0..<Self.length {
        chain = chain.map { value in
          transformed.increment()
          return value + 1
        }
      }
      resolver.reject(.boom)
      return (chain.outcome, transformed.value)
    }
    #expect(outcome == .failure(.boom))
    #expect(transformed == 0)
  }

  @Test("a long map chain, cancel path: cancelling the root cancels every step")
  func mapChainCancelRoot() async {
    let (outcome, tailCancelled, lateResolve) = await onDedicatedThread {
      let (root, resolver) = Future<Int, TestError>.pending()
      var chain = root
      for _ in 0..<Self.length {
        chain = chain.map { $0 + 1 }
      }
      let tailCancelled = Counter()
      chain.onCancel { tailCancelled.increment() }
      root.cancel()
      return (chain.outcome, tailCancelled.value, resolver.resolve(0))
    }
    #expect(outcome == .cancelled)
    #expect(tailCancelled == 1)
    #expect(!lateResolve)
  }

  @Test("a long map chain, cancel path: cancelling the tail reaches the root's worker")
  func mapChainCancelTail() async {
    let (pendingBefore, rootOutcome, workerStopped) = await onDedicatedThread {
      let (root, resolver) = Future<Int, TestError>.pending()
      let workerStopped = Counter()
      resolver.onCancel { workerStopped.increment() }
      var chain = root
      for _ in 0..<Self.length {
        chain = chain.map { $0 + 1 }
      }
      let pendingBefore = root.outcome == nil
      chain.cancel()
      let rootOutcome = root.outcome
      withExtendedLifetime(resolver) {}
      return (pendingBefore, rootOutcome, workerStopped.value)
    }
    #expect(pendingBefore)
    #expect(rootOutcome == .cancelled)
    #expect(workerStopped == 1)
  }

  @Test("a 100,000-deep recursive flatMap, failure path")
  func recursiveFlatMapFailure() async {
    @Sendable func countDown(_ n: Int) -> Future<Int, TestError> {
      n == 0 ? .rejected(.boom) : Future.resolved(n).flatMap { countDown($0 - 1) }.map { $0 + 1 }
    }
    #expect(await onDedicatedThread { countDown(Self.depth).outcome } == .failure(.boom))
  }

  @Test("a 100,000-deep recursive flatMap on a pending future, resolved or cancelled", arguments: [false, true])
  func recursiveFlatMapOnPending(cancelling: Bool) async {
    let (pendingBefore, top, bottom, workerStopped) = await onDedicatedThread {
      let (bottom, resolver) = Future<Int, TestError>.pending()
      let workerStopped = Counter()
      resolver.onCancel { workerStopped.increment() }
      @Sendable func level(_ n: Int) -> Future<Int, TestError> {
        n == 0 ? bottom : Future.resolved(n).flatMap { level($0 - 1) }.map { $0 + 1 }
      }
      let top = level(Self.depth)
      let pendingBefore = top.outcome == nil
      if cancelling {
        // Cancelling the top walks down 100,000 collapsed levels to the one future that does the work.
        top.cancel()
      } else {
        resolver.resolve(0)
      }
      withExtendedLifetime(resolver) {}
      return (pendingBefore, top.outcome, bottom.outcome, workerStopped.value)
    }
    #expect(pendingBefore)
    if cancelling {
      #expect(top == .cancelled)
      #expect(bottom == .cancelled)
      #expect(workerStopped == 1)
    } else {
      #expect(top == .success(Self.depth))
      #expect(workerStopped == 0)
    }
  }

  @Test("tearing down a long unsettled chain: the abandoned root cancels it all, iteratively")
  func teardownOfUnsettledChain() async {
    UnresolvedReports.install()
    let tailOutcome = Recorder<Outcome<Int, TestError>>()
    let creationLine = #line + 2
    let tailReleased = await onDedicatedThread {
      let (root, resolver) = Future<Int, TestError>.pending()
      var chain = root
      for _ in 0..<Self.length {
        chain = chain.map { $0 + 1 }
      }
      chain.whenComplete { tailOutcome.record($0) }
      let tail = WeakReference(chain)
      _ = consume chain
      _ = consume root
      _ = consume resolver
      return tail.object == nil
    }
    #expect(tailReleased)
    #expect(tailOutcome.all == [.cancelled])
    #expect(UnresolvedReports.reports(line: creationLine).count == 1)
  }

  @Test("100,000 callbacks on one future, each settling a future of its own")
  func wideFanOut() async {
    let delivered = await onDedicatedThread {
      let (root, resolver) = Future<Int, TestError>.pending()
      let delivered = Counter()
      for _ in 0..<Self.depth {
        root.map { $0 + 1 }.whenSuccess { _ in delivered.increment() }
      }
      resolver.resolve(0)
      return delivered.value
    }
    #expect(delivered == Self.depth)
  }
}
