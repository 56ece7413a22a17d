import CPulseAudio
import Futures
import PlayerCore

// The connection to the server: connecting with a deadline, and losing it.
extension PulseOutput {
  /// Connects if nothing is under way; settles once connected or once connecting failed.
  func connect() -> Future<Void, PlayerError> {
    let (future, resolver) = Future<Void, PlayerError>.pending()
    locked {
      whenConnectedLocked { result in self.handOff { resolver.settle(with: Outcome(result)) } }
    }
    return future
  }

  /// Runs `body` once connected, or once connecting failed: at once when the context is ready, otherwise in
  /// the context's state callback (mainloop thread), either way with the lock held; connects if nothing is
  /// under way. What must follow the handshake without a thread hand-over (a prepared stream's creation)
  /// uses this instead of ``connect()``.
  func whenConnectedLocked(_ body: @escaping (Result<Void, PlayerError>) -> Void) {
    assertLocked()
    switch connection.request(body) {
    case .runNow: return body(.success(()))
    case .wait: return
    case .connect: break
    }
    let api = loop.api
    let props = pa_proplist_new()
    pa_proplist_sets(props, PA_PROP_APPLICATION_NAME, "splay")
    pa_proplist_sets(props, PA_PROP_APPLICATION_ID, "org.splay.player")
    pa_proplist_sets(props, PA_PROP_MEDIA_ROLE, "music")
    let made = pa_context_new_with_proplist(api, "splay", props)
    pa_proplist_free(props)
    guard let ctx = made else { return failConnectLocked(detail: "no memory for a connection") }
    connection.made(ctx)
    watchContextLocked(ctx)
    if pa_context_connect(ctx, configuration.server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
      failConnectLocked(detail: lastErrorLocked())
    }
  }

  /// Follows the connecting context's state, with a deadline behind the wait: libpulse's own connect timeout
  /// is far longer than a player should hang. The deadline is a timer of the mainloop itself, freed as soon as
  /// the attempt ends either way, so that nothing of the attempt outlives it.
  func watchContextLocked(_ ctx: OpaquePointer) {
    pa_context_set_state_callback(
      ctx,
      { _, userdata in
        Unmanaged<PulseOutput>.fromOpaque(userdata!).takeUnretainedValue().contextStateChangedLocked()
      }, Unmanaged.passUnretained(self).toOpaque())
    let deadline = pa_rtclock_now() + pa_usec_t(configuration.connectTimeout * 1e6)
    timers.connect.schedule(at: deadline, on: ctx) { [weak self] in self?.connectTimedOut() }
  }

  /// The connection attempt got no answer in time (mainloop thread).
  private func connectTimedOut() {
    timers.connect.cancel()
    guard !connection.isReady, connection.context != nil else { return }
    failConnectLocked(detail: "no answer within \(formatSeconds(configuration.connectTimeout)) s")
  }

  func contextStateChangedLocked() {
    guard let context = connection.context else { return }
    switch pa_context_get_state(context) {
    case PA_CONTEXT_READY:
      timers.connect.cancel()
      let waiters = connection.becameReady()
      subscribeToVolumeChangesLocked(context)
      identifyServerLocked(context)
      for waiter in waiters { waiter(.success(())) }
    case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
      switch connection.failure() {
      case .lost:
        let error = PlayerError.outputLost(detail: "\(serverName): \(lastErrorLocked())")
        teardownStreamLocked()
        teardownContextLocked(error: error)
        announceLocked(.lost(error))
      case .connectFailed:
        failConnectLocked(detail: lastErrorLocked())
      }
    default:
      break
    }
  }

  private func failConnectLocked(detail: String) {
    let waiters = teardownContextLocked(error: .outputUnavailable(server: serverName, detail: detail))
    for waiter in waiters { waiter(.failure(.outputUnavailable(server: serverName, detail: detail))) }
  }

  /// Forgets the context and fails every operation libpulse will now never call back; returns who still
  /// waited for the connection.
  @discardableResult
  func teardownContextLocked(error: PlayerError) -> [ConnectionState.Waiter] {
    assertLocked()
    timers.cancelAll()
    requests.fail(with: error)
    session?.draining = nil
    if let ctx = connection.context {
      pa_context_set_state_callback(ctx, nil, nil)
      pa_context_set_subscribe_callback(ctx, nil, nil)
      pa_context_disconnect(ctx)
      pa_context_unref(ctx)
    }
    buffer.disconnected()
    return connection.disconnected()
  }

  func lastErrorLocked() -> String {
    guard let context = connection.context else { return "not connected" }
    return String(cString: pa_strerror(pa_context_errno(context)))
  }
}
