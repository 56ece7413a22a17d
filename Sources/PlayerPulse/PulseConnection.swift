import CPulseAudio
import PlayerCore

#if canImport(Glibc)
  import Glibc
#endif

/// The connection to the server: the libpulse context, connecting with a deadline, and what the context's
/// state changes mean (``ConnectionState`` decides; this carries it out). Lock-confined like the output that
/// owns it: every method runs with the mainloop lock held or on the mainloop thread.
///
/// The owner hears of the connection through three hooks, set once before the first connection: the context
/// became ready, the connection was lost, and the context is about to go (whatever was armed on it or waits
/// on it must go first).
final class PulseConnection {
  /// The output that owns this connection is told, lock held.
  struct Hooks {
    /// The context became ready.
    var ready: (OpaquePointer) -> Void = { _ in }
    /// A ready connection was lost, with the error to report.
    var lost: (PlayerError) -> Void = { _ in }
    /// The context is about to be freed, for the reason given.
    var closing: (PlayerError) -> Void = { _ in }
  }

  private let loop: ThreadedMainloop
  private let server: String?
  private let timeout: Double
  private var state = ConnectionState()
  /// Gives up on a connection attempt the server does not answer.
  private let deadline: MainloopTimer
  /// What the owner is told; set before the first connection.
  var hooks = Hooks()

  /// A connection to `server` (nil: libpulse's default) on `loop`, made at the first request; an attempt may
  /// take `timeout` seconds.
  init(loop: ThreadedMainloop, server: String?, timeout: Double) {
    self.loop = loop
    self.server = server
    self.timeout = timeout
    deadline = MainloopTimer(mainloop: loop.pointer)
  }

  /// The context, until it is torn down.
  var context: OpaquePointer? { state.context }
  /// The context became ready and has not gone since.
  var isReady: Bool { state.isReady }

  /// The server address tried, for messages.
  var serverName: String {
    server ?? getenv("PULSE_SERVER").map { String(cString: $0) } ?? "the default server"
  }

  /// The server's reason for the last failure on this connection.
  func lastError() -> String {
    guard let context = state.context else { return "not connected" }
    return String(cString: pa_strerror(pa_context_errno(context)))
  }

  /// Runs `body` once connected, or once connecting failed: at once when the context is ready, otherwise in
  /// the context's state callback (mainloop thread), either way with the lock held; connects if nothing is
  /// under way.
  func whenConnected(_ body: @escaping (Result<Void, PlayerError>) -> Void) {
    loop.assertLocked(function: #function)
    switch state.request(body) {
    case .runNow: return body(.success(()))
    case .wait: return
    case .connect: break
    }
    let props = pa_proplist_new()
    pa_proplist_sets(props, PA_PROP_APPLICATION_NAME, "splay")
    pa_proplist_sets(props, PA_PROP_APPLICATION_ID, "org.splay.player")
    pa_proplist_sets(props, PA_PROP_MEDIA_ROLE, "music")
    let made = pa_context_new_with_proplist(loop.api, "splay", props)
    pa_proplist_free(props)
    guard let context = made else { return failConnect(detail: "no memory for a connection") }
    state.made(context)
    watch(context)
    if pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
      failConnect(detail: lastError())
    }
  }

  /// Takes over `context`, for which `pa_context_connect` was called elsewhere, wherever its handshake got to.
  func adopt(_ context: OpaquePointer) {
    state.made(context)
    watch(context)
    // Whatever state it reached before it was watched (ready, or failed) is taken up now.
    stateChanged()
  }

  /// Frees the context after the owner's `closing` hook; returns who still waited for the connection.
  @discardableResult
  func disconnect(error: PlayerError) -> [ConnectionState.Waiter] {
    loop.assertLocked(function: #function)
    deadline.cancel()
    hooks.closing(error)
    if let context = state.context {
      pa_context_set_state_callback(context, nil, nil)
      pa_context_set_subscribe_callback(context, nil, nil)
      pa_context_disconnect(context)
      pa_context_unref(context)
    }
    return state.disconnected()
  }

  /// Follows the connecting context's state, with a deadline behind the wait: libpulse's own connect timeout
  /// is far longer than a player should hang. The deadline is a timer of the mainloop itself, freed as soon as
  /// the attempt ends either way, so that nothing of the attempt outlives it.
  private func watch(_ context: OpaquePointer) {
    pa_context_set_state_callback(
      context,
      { _, userdata in Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue().stateChanged() },
      Unmanaged.passUnretained(self).toOpaque())
    let due = pa_rtclock_now() + pa_usec_t(timeout * 1e6)
    deadline.schedule(at: due, on: context) { [weak self] in self?.timedOut() }
  }

  /// The connection attempt got no answer in time (mainloop thread).
  private func timedOut() {
    deadline.cancel()
    guard !state.isReady, state.context != nil else { return }
    failConnect(detail: "no answer within \(formatSeconds(timeout)) s")
  }

  private func stateChanged() {
    guard let context = state.context else { return }
    switch pa_context_get_state(context) {
    case PA_CONTEXT_READY:
      deadline.cancel()
      let waiters = state.becameReady()
      hooks.ready(context)
      for waiter in waiters { waiter(.success(())) }
    case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
      switch state.failure() {
      case .lost: hooks.lost(.outputLost(detail: "\(serverName): \(lastError())"))
      case .connectFailed: failConnect(detail: lastError())
      }
    default:
      break
    }
  }

  private func failConnect(detail: String) {
    let error = PlayerError.outputUnavailable(server: serverName, detail: detail)
    for waiter in disconnect(error: error) { waiter(.failure(error)) }
  }
}
