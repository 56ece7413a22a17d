import Glibc

/// A thread of its own for work that blocks (reading keys from the terminal): such a read must not hold one
/// of Dispatch's or Swift concurrency's shared threads. (FoundationEssentials has no `Thread`.)
enum DetachedThread {
  private final class Body {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
  }

  /// Starts `body` on a new detached thread.
  static func start(_ body: @escaping @Sendable () -> Void) {
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(
      &thread, nil,
      { raw in
        Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
        return nil
      }, context)
    guard created == 0 else {
      // No thread: nothing will run the body, so release it here.
      Unmanaged<Body>.fromOpaque(context).release()
      return
    }
    pthread_detach(thread)
  }
}
