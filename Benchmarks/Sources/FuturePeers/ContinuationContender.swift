import Dispatch
import Synchronization

/// Swift concurrency's own future: a `Task` whose body waits on a `withCheckedContinuation` that the producer
/// resumes; the code after the `await` in the task is the callback, and `await task.value` observes it.
///
/// A continuation exists only once the task has started and suspended, so the producer cannot resume it
/// directly; ``ContinuationSlot`` is the smallest glue that lets either side arrive first, and its cost is part
/// of what using continuations as futures costs. Each workload runs as one task that the benchmark thread
/// waits for (once per batch, so every operation of the batch shares that one wait). W4 does not apply: a
/// continuation has exactly one waiter, the task that created it, so there is nothing for a second thread to
/// register.
public struct ContinuationContender: FutureContender {
  /// The slot keeps the task suspended until it is resumed.
  public typealias Pending = (slot: ContinuationSlot<Int>, task: Task<Int, Never>)

  /// Continuations need no context.
  public init() {}

  public func createObserveResolve(count: Int) -> Int {
    waitFor {
      var total = 0
      for index in 0..<count {
        let slot = ContinuationSlot<Int>()
        let task = Task { await slot.value }
        slot.resume(index)
        total &+= await task.value
      }
      return total
    }
  }

  public func mapChainOnResolved(length: Int) -> Int {
    waitFor {
      var step = Task { 0 }
      _ = await step.value
      for _ in 0..<length {
        let previous = step
        step = Task { await previous.value &+ 1 }
      }
      return await step.value
    }
  }

  public func callbacksOnOne(count: Int) -> Int {
    waitFor {
      let slot = ContinuationSlot<Int>()
      let root = Task { await slot.value }
      let callbacks = (0..<count).map { _ in Task { await root.value } }
      slot.resume(1)
      var total = 0
      for callback in callbacks {
        total &+= await callback.value
      }
      return total
    }
  }

  public func prepareRace(count: Int, delivered: DeliveryCounter) -> (any RaceRound)? {
    nil
  }

  public func chainOnPending(length: Int) -> Int {
    waitFor {
      let slot = ContinuationSlot<Int>()
      var step = Task { await slot.value }
      for _ in 0..<length {
        let previous = step
        step = Task { await previous.value &+ 1 }
      }
      slot.resume(0)
      return await step.value
    }
  }

  public func makePending(observer: Tally) -> Pending {
    let slot = ContinuationSlot<Int>()
    return (
      slot,
      Task {
        let value = await slot.value
        observer.add(value)
        return value
      }
    )
  }

  public func waitUntilParked(_ pending: Pending) {
    while !pending.slot.isWaiting {}
  }

  public func settle(_ pending: Pending) {
    pending.slot.resume(1)
    _ = waitFor { await pending.task.value }
  }

  /// Runs `body` as a task and blocks the calling thread until it returns.
  ///
  /// Only for the benchmark's own threads, which are not the concurrency pool's, so blocking one cannot starve
  /// the tasks it waits for.
  private func waitFor(_ body: @escaping @Sendable () async -> Int) -> Int {
    let result = ResultBox()
    let done = DispatchSemaphore(value: 0)
    Task {
      result.value = await body()
      done.signal()
    }
    done.wait()
    return result.value
  }
}

/// Carries a task's result to the thread that waits for it.
private final class ResultBox: @unchecked Sendable {
  // Safety: written once by the task before it signals the semaphore, read after the wait on that semaphore.
  var value = 0
}

/// Hands one value to one waiting task, whichever of `resume` and `value` comes first.
public final class ContinuationSlot<Value: Sendable>: Sendable {
  private enum State {
    case empty
    case waiting(CheckedContinuation<Value, Never>)
    case ready(Value)
    case taken
  }

  private let state = Mutex(State.empty)

  /// An empty slot.
  public init() {}

  /// Suspends until ``resume(_:)`` is called, or returns right away if it already was.
  public var value: Value {
    get async {
      await withCheckedContinuation { continuation in
        let ready: Value? = state.withLock { state in
          if case .ready(let value) = state {
            state = .taken
            return value
          }
          state = .waiting(continuation)
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    }
  }

  /// Whether a task is suspended on ``value``.
  public var isWaiting: Bool {
    state.withLock { state in
      if case .waiting = state { return true }
      return false
    }
  }

  /// Gives `value` to the waiting task, or keeps it for the task that has not asked yet.
  public func resume(_ value: Value) {
    let waiting: CheckedContinuation<Value, Never>? = state.withLock { state in
      guard case .waiting(let continuation) = state else {
        state = .ready(value)
        return nil
      }
      state = .taken
      return continuation
    }
    waiting?.resume(returning: value)
  }
}
