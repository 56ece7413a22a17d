#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The per-thread work list that runs callbacks iteratively, in the manner of swift-nio's
/// `CallbackList._run()`.
///
/// Settling a future from inside a callback must not run the new future's callbacks right there: a
/// 1,000,000-step `map` chain would then recurse 1,000,000 frames deep. Instead, the first library call on a
/// thread that has callbacks to run becomes that thread's *drainer*; every future settled (or observed
/// after settling) while it drains is pushed here, and the drainer runs them in a flat loop.
///
/// The order is depth-first, which is the order plain recursion would give: after each callback returns,
/// the futures it settled are drained (in the order it settled them) before the next callback of the same
/// future runs. So a callback registered from inside a callback runs right after that callback returns,
/// and everything runs before the outermost library call returns.
///
/// The list lives in thread-local storage (POSIX keys: the standard library has no thread-local API, and a
/// task-local would follow child tasks onto other threads).
///
/// Entries carry the future's own `drainNext` as a function rather than calling it through a protocol: a
/// protocol witness of a generic class runs unspecialized (looking up generic metadata on every call),
/// whereas a function taken in the caller's specialized code stays specialized.
@usableFromInline
final class DrainStack {
  /// Runs a future's next callback; see `Future.drainNext`.
  @usableFromInline
  typealias Step = (AnyObject) -> Bool

  private struct Entry {
    let future: AnyObject
    let drainNext: Step
  }

  // Only ever touched by the thread that owns the stack, so the dynamic exclusivity checks that class
  // properties get by default would only cost time on the hottest path of the library.

  /// Whether a drainer is running on this thread.
  @exclusivity(unchecked)
  private var isDraining = false
  /// Futures with callbacks to run; the last one runs next.
  @exclusivity(unchecked)
  private var entries: [Entry] = []

  /// This thread's drain stack, created on first use.
  @usableFromInline
  static var current: DrainStack {
    if let existing = pthread_getspecific(drainStackKey) {
      return Unmanaged<DrainStack>.fromOpaque(existing).takeUnretainedValue()
    }
    let stack = DrainStack()
    pthread_setspecific(drainStackKey, Unmanaged.passRetained(stack).toOpaque())
    return stack
  }

  /// Whether a drainer is running on this thread (without creating a stack for threads that never drain).
  @usableFromInline
  static var isDrainingHere: Bool {
    guard let existing = pthread_getspecific(drainStackKey) else { return false }
    return Unmanaged<DrainStack>.fromOpaque(existing).takeUnretainedValue().isDraining
  }

  /// Queues a future whose callbacks the running drainer must run.
  @usableFromInline
  func push(_ future: AnyObject, _ drainNext: @escaping Step) {
    assert(isDraining, "only a drainer may take more work")
    entries.append(Entry(future: future, drainNext: drainNext))
  }

  /// Becomes this thread's drainer: runs every callback of `future` and of everything they settle, and
  /// returns when there is nothing left.
  @usableFromInline
  func drain(_ future: AnyObject, drainNext: Step) {
    assert(!isDraining, "a drainer is already running on this thread")
    isDraining = true
    while drainNext(future) {
      runEntries(pushedFrom: 0)
    }
    runEntries(pushedFrom: 0)
    finishDraining()
  }

  /// Runs `body` as this thread's drainer (unless one is running already), so that the callbacks it makes
  /// due are queued rather than run inside it, then drains them.
  ///
  /// Combinators that register on several futures use it: a callback on an input that has already settled
  /// must not settle the combined future before the other inputs have been registered and counted.
  @usableFromInline
  static func batch(_ body: () -> Void) {
    let stack = current
    guard !stack.isDraining else {
      body()
      return
    }
    stack.isDraining = true
    body()
    stack.runEntries(pushedFrom: 0)
    stack.finishDraining()
  }

  /// Runs `body` as this thread's drainer and returns true, unless a drainer is running here already (then
  /// it returns false without running `body`). What `body` pushes runs once it has returned.
  ///
  /// The fast path of a callback on a future that has already settled uses it: the callback then runs in
  /// place, as a drainer would run it, so what it settles waits until it returns, as it must.
  @usableFromInline
  static func drainIfIdle(_ body: (DrainStack) -> Void) -> Bool {
    let stack = current
    guard !stack.isDraining else { return false }
    stack.isDraining = true
    body(stack)
    stack.runEntries(pushedFrom: 0)
    stack.finishDraining()
    return true
  }

  private func finishDraining() {
    isDraining = false
    if entries.capacity > 4096 {
      // A very wide drain grew the list; give the memory back rather than keep it for the thread's life.
      entries = []
    }
  }

  /// Runs every queued future to completion, depth first.
  ///
  /// A future leaves the stack as soon as its last callback has run, before the futures that callback
  /// settled are drained, so a long chain keeps the stack one or two entries deep.
  private func runEntries(pushedFrom start: Int) {
    putInSettlingOrder(from: start)
    while let top = entries.last {
      let start = entries.count
      if top.drainNext(top.future) {
        putInSettlingOrder(from: start)
      } else {
        entries.remove(at: start - 1)
        putInSettlingOrder(from: start - 1)
      }
    }
  }

  /// Futures settled by one callback are pushed in the order it settled them; reversing that run puts the
  /// first one on top, so it drains first.
  private func putInSettlingOrder(from start: Int) {
    if entries.count - start > 1 {
      entries[start...].reverse()
    }
  }
}

/// The thread-local key of ``DrainStack``; its destructor releases the stack when a thread exits.
private let drainStackKey: pthread_key_t = {
  var key = pthread_key_t()
  let status = pthread_key_create(&key) { pointer in
    guard let pointer else { return }
    Unmanaged<DrainStack>.fromOpaque(pointer).release()
  }
  precondition(status == 0, "pthread_key_create failed: \(status)")
  return key
}()
