import Futures
import Testing

/// `settled`, `value` and `Future { async }`.
@Suite("Async bridge")
struct AsyncBridgeTests {
  @Test("value with a CancellableFailure: returns, throws the error, throws .cancelled")
  func valueWithCancellableFailure() async throws {
    #expect(try await Future<Int, CancellableTestError>.resolved(1).value == 1)
    await #expect(throws: CancellableTestError.boom) {
      try await Future<Int, CancellableTestError>.rejected(.boom).value
    }
    await #expect(throws: CancellableTestError.cancelled) {
      try await Future<Int, CancellableTestError>.cancelled().value
    }
    let (pending, resolver) = Future<Int, CancellableTestError>.pending()
    let waiting = Task { () async throws(CancellableTestError) -> Int in try await pending.value }
    #expect(await untilAwaited(pending, by: 1))
    resolver.reject(.boom)
    let result = await waiting.result
    #expect(throws: CancellableTestError.boom) { try result.get() }
  }

  @Test("value of a Future that cannot fail: throws only CancellationError")
  func valueOfNeverFailingFuture() async throws {
    #expect(try await Future<Int, Never>.resolved(2).value == 2)
    await #expect(throws: CancellationError.self) {
      try await Future<Int, Never>.cancelled().value
    }
  }

  @Test("value of a Future<_, any Error>: the error, or CancellationError")
  func valueOfAnyErrorFuture() async throws {
    await #expect(throws: TestError.boom) {
      try await Future<Int, any Error>.rejected(TestError.boom).value
    }
    await #expect(throws: CancellationError.self) {
      try await Future<Int, any Error>.cancelled().value
    }
  }

  @Test("a settled outcome is never lost, even to a cancelled task")
  func settledOutcomeWinsOverTaskCancellation() async {
    let future = Future<Int, TestError>.resolved(3)
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return await future.settled
    }
    #expect(await task.value == .success(3))
  }

  @Test("a task cancelled before it awaits gets .cancelled at once, and the future it alone waited on is cancelled")
  func alreadyCancelledTask() async {
    let (future, resolver) = Future<Int, TestError>.pending()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return await future.settled
    }
    #expect(await task.value == .cancelled)
    #expect(future.outcome == .cancelled)
    #expect(resolver.isCancelled)
  }

  @Test("one of two awaiting tasks is cancelled: the future goes on for the other")
  func twoAwaiters() async throws {
    let (future, resolver) = Future<Int, TestError>.pending()
    let first = Task { await future.settled }
    let second = Task { await future.settled }
    #expect(await untilAwaited(future, by: 2), "both tasks wait before one is cancelled")
    first.cancel()
    #expect(await first.value == .cancelled)
    #expect(future.outcome == nil)
    resolver.resolve(4)
    #expect(await second.value == .success(4))
  }

  @Test("a derived future keeps its source wanted when an awaiting task is cancelled")
  func derivedKeepsSourceWanted() async throws {
    let (future, resolver) = Future<Int, TestError>.pending()
    let derived = future.map { $0 * 2 }
    let waiting = Task { await future.settled }
    #expect(await untilAwaited(future, by: 2), "the derived future and the task wait")
    waiting.cancel()
    #expect(await waiting.value == .cancelled)
    #expect(future.outcome == nil)
    resolver.resolve(5)
    #expect(derived.outcome == .success(10))
  }

  @Test("Future { } settles with what its body returns or throws")
  func asyncInit() async {
    let succeeding = Future<Int, TestError>(priority: .high) { 6 }
    #expect(await succeeding.settled == .success(6))
    let failing = Future<Int, TestError> { () async throws(TestError) -> Int in throw .boom }
    #expect(await failing.settled == .failure(.boom))
    let untyped = Future<Int, any Error> { () async throws -> Int in throw TestError.other }
    await #expect(throws: TestError.other) { try await untyped.value }
  }

  @Test("many tasks awaiting one future all get its value")
  func manyAwaiters() async {
    let (future, resolver) = Future<Int, Never>.pending()
    await withTaskGroup(of: Int?.self) { group in
      for _ in 0..<100 {
        group.addTask { try? await future.value }
      }
      #expect(await untilAwaited(future, by: 100))
      resolver.resolve(7)
      for await value in group {
        #expect(value == 7)
      }
    }
  }
}
