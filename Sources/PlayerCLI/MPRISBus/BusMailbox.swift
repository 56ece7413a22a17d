import CSDBus
import Futures
import Glibc
import PlayerCore

/// What other threads hand to the bus thread: sd-bus objects are not thread-safe, so everything that touches the
/// connection happens there, and the rest of splay only posts these.
enum BusJob: Sendable {
  /// A state the controller published (from its observer).
  case state(PlayerState)
  /// The command(s) behind pending call `call` settled: reply with this outcome. `seek` when the call moved the
  /// position (`Seek`, `SetPosition`), which is announced with `Seeked` however small the move.
  case settled(call: Int, Outcome<PlayerState, PlayerError>, seek: Bool)
  /// Leave the loop and close the connection.
  case stop
}

/// The bus thread's queue of ``BusJob``s, and the eventfd that wakes it from its wait.
final class BusMailbox: Sendable {
  private struct Box {
    var jobs: [BusJob] = []
    var fd: Int32
  }

  private let box: Lock<Box>

  /// Opens the eventfd; nil when the system has none to give.
  init?() {
    let fd = splay_bus_wake_open()
    guard fd >= 0 else { return nil }
    box = Lock(Box(fd: fd))
  }

  /// The descriptor the bus thread waits on (``splay_bus_wait``).
  var wakeDescriptor: Int32 { box.withLock { $0.fd } }

  /// Queues `job` and wakes the bus thread; returns false (and drops it) once the mailbox is closed. Any thread;
  /// quick enough for the controller's observer.
  @discardableResult
  func post(_ job: BusJob) -> Bool {
    box.withLock { box in
      guard box.fd >= 0 else { return false }
      box.jobs.append(job)
      // Only the first job wakes the thread, which takes every job queued by then: in a storm of states (16,000
      // volume changes on the socket), one write per batch rather than one per state. Under the lock, so that
      // ``close()`` cannot close the descriptor (which the number could then name another file by) between the
      // check and the write.
      if box.jobs.count == 1 { splay_bus_wake(box.fd) }
      return true
    }
  }

  /// Takes every queued job, oldest first.
  func take() -> [BusJob] {
    box.withLock { box in
      defer { box.jobs.removeAll() }
      return box.jobs
    }
  }

  /// Refuses later posts, closes the eventfd, and returns the jobs still queued.
  func close() -> [BusJob] {
    box.withLock { box in
      if box.fd >= 0 { Glibc.close(box.fd) }
      box.fd = -1
      defer { box.jobs.removeAll() }
      return box.jobs
    }
  }
}
