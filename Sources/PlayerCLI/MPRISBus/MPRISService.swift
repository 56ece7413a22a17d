import CSDBus
import Futures
import Glibc
import PlayerCore

/// splay on the D-Bus session bus as an MPRIS media player (`org.mpris.MediaPlayer2.splay`), so that media keys,
/// playerctl, desktop widgets and status bars see and control it. docs/mpris.md maps the interface to splay.
///
/// The connection lives on a thread of its own that sleeps in poll(2) until the bus or the rest of splay has
/// something for it (``BusMailbox``): no busy loop, and nothing on the player's threads waits for the bus.
/// Without a session bus the thread ends quietly and splay plays as before.
///
/// ```swift
/// let mpris = MPRISService.start(controller: controller, now: monotonicNow) { quit() }
/// ...
/// _ = await mpris?.stop().settled
/// ```
final class MPRISService: Sendable {
  /// The well-known name; `.instance<pid>` is added when another player holds it (the spec's convention).
  static let busName = "org.mpris.MediaPlayer2.splay"

  private let mailbox: BusMailbox
  private let stopped: Future<Void, Never>

  private init(mailbox: BusMailbox, stopped: Future<Void, Never>) {
    self.mailbox = mailbox
    self.stopped = stopped
  }

  /// Starts connecting on a new thread and returns at once. `now` reads the clock of the controller's
  /// confirmations (``ConfirmedPosition/confirmedAt``); `onQuit` runs, on the bus thread, after a client's
  /// `Quit` was answered. Nil only when no thread or eventfd could be had.
  static func start(
    controller: PlayerController, now: @escaping @Sendable () -> UInt64, onQuit: @escaping @Sendable () -> Void
  ) -> MPRISService? {
    guard let mailbox = BusMailbox() else { return nil }
    let (stopped, done) = Future<Void, Never>.pending()
    DetachedThread.start {
      serve(controller: controller, mailbox: mailbox, now: now, onQuit: onQuit)
      done.resolve()
    }
    return MPRISService(mailbox: mailbox, stopped: stopped)
  }

  /// Answers the calls still waiting, sends what is queued and closes the connection; the future resolves once
  /// the thread has ended.
  func stop() -> Future<Void, Never> {
    mailbox.post(.stop)
    return stopped
  }

  /// ``stop()``, waiting at most two seconds: the last replies are flushed to the bus daemon, which splay does not
  /// wait on for longer when it does not read them.
  func stopWithin() async {
    _ = await stop().timeout(.seconds(2)).settled
  }

  /// The bus thread: connects, publishes the object, takes the name, then serves until told to stop or the bus
  /// goes away.
  private static func serve(
    controller: PlayerController, mailbox: BusMailbox, now: @escaping @Sendable () -> UInt64,
    onQuit: @escaping @Sendable () -> Void
  ) {
    var opened: OpaquePointer?
    guard sd_bus_open_user(&opened) >= 0, let bus = opened else {
      _ = mailbox.close()
      return
    }
    let object = MPRISObject(bus: bus, controller: controller, mailbox: mailbox, now: now, onQuit: onQuit)
    let handlers = UnsafeMutablePointer<splay_mpris_handlers>.allocate(capacity: 1)
    handlers.initialize(to: Self.handlers(for: object))
    defer {
      sd_bus_flush_close_unref(bus)
      // After the connection, which held the pointers: nothing calls the handlers any more.
      handlers.deallocate()
      withExtendedLifetime(object) {}
    }
    // The object first, so that a client that sees the name appear can use it at once.
    guard splay_mpris_add(bus, handlers) >= 0, requestName(bus) else {
      _ = mailbox.close()
      return
    }
    object.start()
    run(bus, object, mailbox)
    object.handle(mailbox.close())
    object.finish()
  }

  /// Takes the well-known name, or the per-process one when another splay (or anything else) holds it.
  private static func requestName(_ bus: OpaquePointer) -> Bool {
    sd_bus_request_name(bus, busName, 0) >= 0 || sd_bus_request_name(bus, "\(busName).instance\(getpid())", 0) >= 0
  }

  /// The loop: takes up posted jobs, lets sd-bus process what came in until nothing is left, then sleeps until
  /// the bus or the mailbox wakes it.
  private static func run(_ bus: OpaquePointer, _ object: MPRISObject, _ mailbox: BusMailbox) {
    while true {
      let jobs = mailbox.take()
      object.handle(jobs)
      if jobs.contains(where: { if case .stop = $0 { true } else { false } }) { return }
      let processed = sd_bus_process(bus, nil)
      // Negative: the connection is gone (the bus daemon quit); MPRIS ends, playing goes on.
      if processed < 0 { return }
      if processed > 0 { continue }
      if splay_bus_wait(bus, mailbox.wakeDescriptor) < 0 { return }
    }
  }

  /// The C handlers' table, forwarding to `object` (kept alive by ``serve``).
  private static func handlers(for object: MPRISObject) -> splay_mpris_handlers {
    splay_mpris_handlers(
      context: Unmanaged.passUnretained(object).toOpaque(),
      get: { context, interface, property, reply, error in
        MPRISObject.from(context).get(
          interface: String(cString: interface!), property: String(cString: property!), reply: reply!, error: error)
      },
      call: { context, _, member, message, error in
        MPRISObject.from(context).call(member: String(cString: member!), message: message!, error: error)
      },
      set: { context, property, message, error in
        MPRISObject.from(context).set(property: String(cString: property!), message: message!, error: error)
      })
  }
}
