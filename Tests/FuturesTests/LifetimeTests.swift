import Futures
import Testing

/// What is kept alive, and for how long, checked with weak references.
@Suite("Lifetimes")
struct LifetimeTests {
  /// Registers one observer of each kind, each capturing its own tracked object.
  private func observeWithTrackedCaptures(_ future: Future<Int, TestError>) -> [() -> Tracked?] {
    let captured = (0..<4).map { _ in Tracked() }
    future.whenSuccess { [captured] _ in _ = captured[0] }
    future.whenFailure { [captured] _ in _ = captured[1] }
    future.onCancel { [captured] in _ = captured[2] }
    future.whenComplete { [captured] _ in _ = captured[3] }
    return captured.map { object in { [weak object] in object } }
  }

  @Test("every callback is released when the future settles, whether it ran or not", arguments: [0, 1, 2])
  func callbacksReleasedOnSettle(how: Int) {
    let (future, resolver) = Future<Int, TestError>.pending()
    let references = observeWithTrackedCaptures(future)
    #expect(references.allSatisfy { $0() != nil })
    switch how {
    case 0: resolver.resolve(1)
    case 1: resolver.reject(.boom)
    default: future.cancel()
    }
    #expect(references.allSatisfy { $0() == nil })
  }

  @Test("a callback is released as soon as it has run, not when its siblings have")
  func callbackReleasedRightAfterRunning() {
    let (future, resolver) = Future<Int, TestError>.pending()
    let first: WeakReference<Tracked> = {
      let tracked = Tracked()
      future.whenSuccess { _ in _ = tracked }
      return WeakReference(tracked)
    }()
    let stillAliveInSecond = Recorder<Bool>()
    future.whenSuccess { _ in stillAliveInSecond.record(first.object != nil) }
    resolver.resolve(1)
    #expect(stillAliveInSecond.all == [false])
  }

  @Test("a future does not keep its resolver alive; dropping it cancels the future and reports once")
  func droppedResolver() async {
    UnresolvedReports.install()
    weak var weakResolver: Future<Int, TestError>.Resolver?
    let stopped = Counter()
    let creationLine = #line + 1
    let future = Future<Int, TestError> { resolver in
      weakResolver = resolver
      resolver.onCancel { stopped.increment() }
    }
    #expect(weakResolver == nil)
    #expect(future.outcome == .cancelled)
    #expect(stopped.value == 1)
    #expect(UnresolvedReports.reports(line: creationLine).count == 1)

    // A task awaiting the future stops waiting when the resolver goes.
    let holder = Recorder<Future<Int, TestError>.Resolver>()
    let awaited: Future<Int, TestError> = {
      let (future, resolver) = Future<Int, TestError>.pending()
      holder.record(resolver)
      return future
    }()
    let waiting = Task { await awaited.settled }
    #expect(await untilAwaited(awaited, by: 1))
    holder.clearAll()
    #expect(await waiting.value == .cancelled)
  }

  @Test("a settled resolver releases quietly: no report")
  func settledResolverDoesNotReport() {
    UnresolvedReports.install()
    let creationLine = #line + 1
    let (future, resolver) = Future<Int, TestError>.pending()
    resolver.resolve(1)
    _ = consume resolver
    #expect(future.outcome == .success(1))
    #expect(UnresolvedReports.reports(line: creationLine).isEmpty)
  }

  @Test("settled chains are freed: no cycle between a derived future and its source survives settling")
  func settledChainsAreFreed() {
    weak var weakSource: Future<Int, TestError>?
    weak var weakMiddle: Future<Int, TestError>?
    weak var weakTail: Future<String, TestError>?
    do {
      let (source, resolver) = Future<Int, TestError>.pending()
      let middle = source.map { $0 + 1 }
      let tail = middle.flatMap { Future.resolved("\($0)") }
      weakSource = source
      weakMiddle = middle
      weakTail = tail
      resolver.resolve(1)
      #expect(tail.outcome == .success("2"))
    }
    #expect(weakSource == nil)
    #expect(weakMiddle == nil)
    #expect(weakTail == nil)

    // A derived future cancelled while its source still runs is freed once the source settles.
    let (source, resolver) = Future<Int, TestError>.pending()
    let other = source.map { $0 }
    do {
      let derived = source.map { $0 + 1 }
      weakMiddle = derived
      derived.cancel()
    }
    resolver.resolve(1)
    #expect(weakMiddle == nil)
    #expect(other.outcome == .success(1))
  }

  @Test("Future { } releases its body and task once settled")
  func asyncInitReleasesBody() async {
    let (future, captured): (Future<Int, TestError>, WeakReference<Tracked>) = {
      let tracked = Tracked()
      let future = Future { () async throws(TestError) -> Int in
        _ = tracked
        return 1
      }
      return (future, WeakReference(tracked))
    }()
    #expect(await future.settled == .success(1))
    #expect(await eventually { captured.object == nil })
  }
}
