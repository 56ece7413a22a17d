import CPulseAudio
import PlayerCore

/// A timer of a libpulse mainloop (`pa_time_event`): it fires on the mainloop thread, with the lock held.
///
/// Armed on a context with ``schedule(at:on:fired:)``, re-armed in place, and freed by ``cancel()``, which the owner
/// calls, lock held, before the context it was made on goes away. A mainloop timer wakes nobody but the
/// mainloop thread, which a Dispatch timer would not spare. Actions hold their owner weakly: the owner's last
/// reference may go on another thread while an action runs, its deinit then waiting for the lock the action
/// holds (an `unowned` owner crashed there, 1 in about 150 model sequences).
final class MainloopTimer {
  private let mainloop: OpaquePointer
  private var event: OpaquePointer?
  private var fired: () -> Void = {}
  /// Armed, and neither fired nor cancelled since.
  private(set) var isPending = false

  /// A timer of `mainloop`, not armed yet.
  init(mainloop: OpaquePointer) {
    self.mainloop = mainloop
  }

  // libpulse holds the timer unretained: one that went with its event alive would be called after it was freed.
  deinit {
    assert(event == nil, "a mainloop timer went without cancel()")
  }

  /// Runs `fired` (mainloop thread, lock held) once at `due` (`pa_rtclock_now` µs), replacing an earlier due
  /// time and action. Lock held.
  func schedule(at due: pa_usec_t, on context: OpaquePointer, fired: @escaping () -> Void) {
    self.fired = fired
    isPending = true
    if let event { return pa_context_rttime_restart(context, event, due) }
    event = pa_context_rttime_new(
      context, due,
      { _, _, _, userdata in
        let timer = Unmanaged<MainloopTimer>.fromOpaque(userdata!).takeUnretainedValue()
        timer.isPending = false
        timer.fired()
      }, Unmanaged.passUnretained(self).toOpaque())
  }

  /// Frees the event; a later ``schedule(at:on:fired:)`` makes a new one. Lock held.
  func cancel() {
    isPending = false
    guard let event else { return }
    self.event = nil
    fired = {}
    pa_threaded_mainloop_get_api(mainloop).pointee.time_free(event)
  }
}

/// A stream's mainloop timers, cancelled when it closes: timing requests while audio flows, the gapless boundary check, the wait
/// before the last track's drain and a live stream's next title (the connect deadline is ``PulseConnection``'s).
struct MainloopTimers {
  /// Asks for timing updates while audio flows.
  let timing: MainloopTimer
  /// Looks for the gapless boundary when the server's clock should have reached it (write callbacks alone may
  /// come too seldom to notice it within a few milliseconds).
  let boundary: MainloopTimer
  /// Starts the drain of the last track once the server holds little more than `targetLatency` of it.
  let drain: MainloopTimer
  /// Publishes a live stream's next title when the server should have played its audio.
  let title: MainloopTimer

  /// The four timers of `mainloop`, none armed.
  init(mainloop: OpaquePointer) {
    timing = MainloopTimer(mainloop: mainloop)
    boundary = MainloopTimer(mainloop: mainloop)
    drain = MainloopTimer(mainloop: mainloop)
    title = MainloopTimer(mainloop: mainloop)
  }

  /// Frees them all (lock held), before the context they were armed on goes away.
  func cancelAll() {
    for timer in [timing, boundary, drain, title] { timer.cancel() }
  }
}
