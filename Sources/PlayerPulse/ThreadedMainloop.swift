import CPulseAudio
import Dispatch

#if canImport(Glibc)
  import Glibc
#endif

/// The `pa_threaded_mainloop` that runs libpulse for one output, and its lock: the output's state is read and
/// written only with it held, through ``locked(_:)`` or as the loop thread running a callback.
final class ThreadedMainloop: @unchecked Sendable {
  /// The libpulse mainloop.
  let pointer: OpaquePointer
  /// The thread in ``locked(_:)``, for ``assertLocked(function:)``; guarded by the lock itself.
  private var holder: pthread_t?

  /// A new loop, running.
  init() {
    pointer = pa_threaded_mainloop_new()
    pa_threaded_mainloop_start(pointer)
  }

  /// Takes over a loop started elsewhere (a connection begun before its output existed).
  init(adopting pointer: OpaquePointer) {
    self.pointer = pointer
  }

  /// Whether the caller is the loop thread, which holds the lock while it runs callbacks.
  var isCurrentThread: Bool { pa_threaded_mainloop_in_thread(pointer) != 0 }

  /// The loop's API table, for contexts and timers.
  var api: UnsafeMutablePointer<pa_mainloop_api> { pa_threaded_mainloop_get_api(pointer) }

  /// Runs `body` with the lock held. Never called on the loop thread itself.
  func locked<T>(_ body: () -> T) -> T {
    assert(!isCurrentThread, "the mainloop thread holds the lock already")
    pa_threaded_mainloop_lock(pointer)
    // The lock is recursive: an inner `locked` must leave the outer one's holder in place.
    let outer = holder
    holder = pthread_self()
    defer {
      holder = outer
      pa_threaded_mainloop_unlock(pointer)
    }
    return body()
  }

  /// Runs `body` with the lock held, taking it unless this is the mainloop thread (which holds it while it runs
  /// callbacks): for a deinit, which runs wherever the last reference goes.
  func lockedFromAnyThread(_ body: () -> Void) {
    if isCurrentThread { body() } else { locked(body) }
  }

  /// Checks, in debug builds, that the caller holds the lock, through ``locked(_:)`` or as the loop thread.
  func assertLocked(function: StaticString) {
    assert(
      isCurrentThread || holder.map { pthread_equal($0, pthread_self()) != 0 } == true,
      "\(function) needs the mainloop lock")
  }

  /// Stops and frees the loop once nothing holds it: its owner's parts may outlive the owner for as long as work
  /// they queued still runs, and that work takes the lock. The last reference may go inside a libpulse callback,
  /// on the loop thread, which may not stop or free its own loop: another thread does that then.
  deinit {
    guard isCurrentThread else {
      pa_threaded_mainloop_stop(pointer)
      pa_threaded_mainloop_free(pointer)
      return
    }
    let loop = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer)))
    // A serial queue: the global pool would start libdispatch's once-a-second monitor for good.
    DispatchQueue(label: "splay.pulse.free").async {
      guard let mainloop = OpaquePointer(bitPattern: loop) else { return }
      pa_threaded_mainloop_stop(mainloop)
      pa_threaded_mainloop_free(mainloop)
    }
  }
}
