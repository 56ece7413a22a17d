import Dispatch
import Futures
import Testing

@Suite("Executors")
struct ExecutionContextTests {
  @Test("a queue executor runs callbacks on its queue, in registration order")
  func queueExecutor() async {
    let queue = DispatchQueue(label: "futures.tests.executor")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 1)
    let order = Recorder<Int>()
    let onQueue = Recorder<Bool>()
    let (future, resolver) = Future<Int, TestError>.pending()
    for index in 0..<50 {
      future.whenSuccess(on: .queue(queue)) { _ in
        onQueue.record(DispatchQueue.getSpecific(key: key) == 1)
        order.record(index)
      }
    }
    resolver.resolve(1)
    #expect(await eventually { order.all.count == 50 })
    #expect(order.all == Array(0..<50))
    #expect(onQueue.all.allSatisfy { $0 })
  }

  @Test("every observer kind honours its executor")
  func observerKindsUseExecutor() {
    let jobs = Recorder<@Sendable () -> Void>()
    let deferred = ExecutionContext { job in jobs.record(job) }
    let ran = Recorder<String>()
    Future<Int, TestError>.resolved(1).whenSuccess(on: deferred) { _ in ran.record("then") }
      .whenComplete(on: deferred) { _ in ran.record("always") }
    Future<Int, TestError>.rejected(.boom).whenFailure(on: deferred) { _ in ran.record("catch") }
    Future<Int, TestError>.cancelled().onCancel(on: deferred) { ran.record("onCancel") }
    #expect(ran.all.isEmpty)
    for job in jobs.all { job() }
    #expect(ran.all == ["then", "always", "catch", "onCancel"])
  }

  @Test("the main actor executor runs callbacks on the main actor")
  func mainActorExecutor() async {
    let onMain = Recorder<Bool>()
    Future<Int, TestError>.resolved(1).whenSuccess(on: .mainActor) { _ in
      MainActor.assumeIsolated { onMain.record(true) }
    }
    #expect(await eventually { onMain.all == [true] })
  }
}
