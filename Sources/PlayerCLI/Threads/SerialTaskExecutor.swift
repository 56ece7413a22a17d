import Dispatch

/// Runs splay's async code (each command's `run()` and what it awaits) on one serial dispatch queue instead of
/// Swift concurrency's global executor.
///
/// On Linux the global executor is libdispatch's non-overcommit thread pool, and the first worker of that pool
/// starts a monitor that wakes the process once a second for as long as it lives: a paused `splay serve` or
/// `splay play` would never sleep. A serial queue runs on the overcommit pool, which has no monitor. splay's
/// commands await one thing at a time, so one queue loses nothing.
final class SerialTaskExecutor: TaskExecutor {
  private let queue: DispatchQueue

  /// An executor whose jobs run one at a time on a new serial queue named `label`.
  init(label: String) {
    queue = DispatchQueue(label: label)
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
