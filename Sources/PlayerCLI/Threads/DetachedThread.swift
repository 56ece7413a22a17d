import CThreadStart
import Glibc

/// A thread of its own for work that blocks (reading keys from the terminal), which must not hold one of
/// Dispatch's or Swift concurrency's shared threads, or that must start at once beside the caller
/// (`EarlyStart`). (FoundationEssentials has no `Thread`.)
enum DetachedThread {
  private final class Body {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
  }

  /// Starts `body` on a new detached thread that begins on another CPU than the caller's, when the caller may
  /// use more than one (`splay_thread_start_elsewhere`): Linux tends to queue a new thread behind its parent,
  /// which then holds it off while another CPU idles (docs/performance.md, "First audio").
  static func startElsewhere(_ body: @escaping @Sendable () -> Void) {
    launch(body) { context in
      splay_thread_start_elsewhere({ raw in Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run() }, context)
    }
  }

  /// Starts `body` on a new detached thread.
  static func start(_ body: @escaping @Sendable () -> Void) {
    launch(body) { context in
      var thread = pthread_t()
      let created = pthread_create(
        &thread, nil,
        { raw in
          Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
          return nil
        }, context)
      if created == 0 { pthread_detach(thread) }
      return created
    }
  }

  /// Hands `body`, retained, to `create`, which starts a detached thread that takes it back and runs it, and
  /// returns 0 or an error number.
  private static func launch(_ body: @escaping @Sendable () -> Void, _ create: (UnsafeMutableRawPointer) -> Int32) {
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    if create(context) != 0 {
      // No thread: nothing will run the body, so release it here.
      Unmanaged<Body>.fromOpaque(context).release()
    }
  }
}
