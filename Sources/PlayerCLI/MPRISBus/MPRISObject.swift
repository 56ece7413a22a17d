import CSDBus
import FoundationEssentials
import Futures
import Glibc
import PlayerCore
import PlayerLibrary

/// splay's object at /org/mpris/MediaPlayer2, as the bus thread runs it: answers property reads from the last
/// confirmed state, turns calls into commands and replies once they settled, and announces each confirmed
/// state that changed a property.
///
/// Lives on the bus thread only (sd-bus calls it from inside `sd_bus_process`, ``MPRISService`` hands it the
/// jobs other threads post), which is why it needs no lock and is not `Sendable`.
final class MPRISObject {
  private let bus: OpaquePointer
  private let controller: PlayerController
  private let mailbox: BusMailbox
  private let now: @Sendable () -> UInt64
  private let onQuit: @Sendable () -> Void
  /// The working folder, against which `xesam:url` makes relative paths absolute.
  private let directory: String

  /// The last confirmed state taken up, and its player properties (all but `Position`).
  private var state: PlayerState
  private var properties: [String: MPRISValue]
  /// The `Metadata` of `state`'s track, made again only when the track changes.
  private var metadata: [String: MPRISValue]
  /// Calls waiting for their commands to settle, by number; each holds a reference to its message.
  private var pending: [Int: OpaquePointer] = [:]
  private var nextCall = 0
  /// The revision of the state last announced with `Seeked`, so that one seek is not announced twice.
  private var seekedRevision: UInt64?
  private var observation: StateObservation?

  init(
    bus: OpaquePointer, controller: PlayerController, mailbox: BusMailbox, now: @escaping @Sendable () -> UInt64,
    onQuit: @escaping @Sendable () -> Void
  ) {
    self.bus = bus
    self.controller = controller
    self.mailbox = mailbox
    self.now = now
    self.onQuit = onQuit
    directory = FileManager.default.currentDirectoryPath
    state = controller.state
    metadata = MPRISMetadata.metadata(
      of: state, directory: directory, coverArt: state.track.flatMap { CoverArt.find(forTrackAt: $0.path) })
    properties = MPRISProperties.player(of: state, metadata: metadata)
  }

  /// Subscribes to the controller's states. The current state is taken after subscribing, so that none is
  /// missed; the ones posted meanwhile that are not newer are skipped (``apply(_:)`` compares revisions).
  func start() {
    observation = controller.observe { [mailbox] state in mailbox.post(.state(state)) }
    apply(controller.state)
  }

  /// Unsubscribes and answers every call still waiting: splay is closing the connection.
  func finish() {
    observation?.cancel()
    observation = nil
    for call in pending.values {
      BusMessage.replyError(call, .cancelled)
      sd_bus_message_unref(call)
    }
    pending.removeAll()
  }

  /// Takes up the jobs other threads posted, in order (``BusJob/stop`` is the loop's). A state that the next job
  /// supersedes (``MPRISCoalescing``) is skipped: under a storm of states the thread catches up in batches.
  func handle(_ jobs: [BusJob]) {
    for (i, job) in jobs.enumerated() {
      if case .state(let state) = job, i + 1 < jobs.count, case .state(let next) = jobs[i + 1],
        MPRISCoalescing.canSkip(state, before: next)
      {
        continue
      }
      handle(job)
    }
  }

  private func handle(_ job: BusJob) {
    switch job {
    case .state(let state):
      apply(state)
    case .settled(let id, let outcome, let seek):
      guard let call = pending.removeValue(forKey: id) else { return }
      defer { sd_bus_message_unref(call) }
      switch outcome {
      case .success(let state):
        // The controller settles a command's future before it tells observers of the state: take the state up
        // here, so that the client that gets the reply already sees its properties (and its signals came first).
        apply(state)
        if seek, seekedRevision != self.state.revision { announceSeek() }
        BusMessage.replySuccess(call)
      case .failure(let error): BusMessage.replyError(call, MPRISError(error))
      case .cancelled: BusMessage.replyError(call, .cancelled)
      }
    case .stop:
      break
    }
  }

  // MARK: - sd-bus's calls (see splay_mpris_handlers)

  /// The object behind a handler's `context` (``MPRISService`` keeps it alive while the bus is open).
  static func from(_ context: UnsafeMutableRawPointer?) -> MPRISObject {
    Unmanaged<MPRISObject>.fromOpaque(context!).takeUnretainedValue()
  }

  /// Appends the value of a property to `reply`.
  func get(
    interface: String, property: String, reply: OpaquePointer, error: UnsafeMutablePointer<sd_bus_error>?
  ) -> Int32 {
    let value: MPRISValue?
    if interface == SPLAY_MPRIS_ROOT {
      value = MPRISProperties.root[property]
    } else if property == "Position" {
      value = .int64(MPRISProperties.position(of: state, at: now()))
    } else {
      value = properties[property]
    }
    guard let value else {
      return BusMessage.set(
        error, MPRISError(name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no property \(property)"))
    }
    return BusMessage.append(value, to: reply)
  }

  /// A method call: reads its arguments and acts on it.
  func call(member: String, message: OpaquePointer, error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    let request: MPRISRequest?
    switch member {
    case "Raise": request = .raise
    case "Quit": request = .quit
    case "Play": request = .play
    case "Pause": request = .pause
    case "PlayPause": request = .playPause
    case "Stop": request = .stop
    case "Next": request = .next
    case "Previous": request = .previous
    case "Seek": request = BusMessage.readInt64(message).map { .seek(offset: $0) }
    case "SetPosition":
      request = BusMessage.readText(message, type: "o").flatMap { trackID in
        BusMessage.readInt64(message).map { .setPosition(trackID: trackID, position: $0) }
      }
    case "OpenUri": request = BusMessage.readText(message, type: "s").map(MPRISRequest.openURI)
    default: request = nil
    }
    guard let request else { return BusMessage.set(error, .invalidArguments("bad arguments for \(member)")) }
    return perform(request, call: message, error: error)
  }

  /// A Properties.Set of a writable player property; `message` is at the variant.
  func set(property: String, message: OpaquePointer, error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    let signature = property == "LoopStatus" ? "s" : property == "Shuffle" ? "b" : "d"
    let request: MPRISRequest?
    switch (property, BusMessage.readVariant(message, signature: signature)) {
    case ("LoopStatus", .string(let name)?): request = .setLoopStatus(name)
    case ("Shuffle", .boolean(let on)?): request = .setShuffle(on)
    case ("Rate", .double(let rate)?): request = .setRate(rate)
    case ("Volume", .double(let level)?): request = .setVolume(level)
    default: request = nil
    }
    guard let request else {
      return BusMessage.set(error, .invalidArguments("\(property) takes a value of type '\(signature)'"))
    }
    return perform(request, call: message, error: error)
  }

  /// Replies now, or sends the commands and keeps the call to reply once they settled. Returns what sd-bus
  /// expects of a handler: 1 when handled, a negative errno with `error` set for an error reply.
  private func perform(
    _ request: MPRISRequest, call: OpaquePointer, error: UnsafeMutablePointer<sd_bus_error>?
  ) -> Int32 {
    switch request.action(in: state) {
    case .nothing:
      BusMessage.replySuccess(call)
    case .quit:
      BusMessage.replySuccess(call)
      onQuit()
    case .refuse(let refusal):
      return BusMessage.set(error, refusal)
    case .send(let commands):
      let id = nextCall
      nextCall += 1
      pending[id] = sd_bus_message_ref(call)
      let seek: Bool
      switch request {
      case .seek, .setPosition: seek = true
      default: seek = false
      }
      MPRISCommands.send(commands, to: controller).whenComplete { [mailbox] outcome in
        mailbox.post(.settled(call: id, outcome, seek: seek))
      }
    }
    return 1
  }

  // MARK: - Signals

  /// Takes up a confirmed state newer than the last: announces the properties it changed, then `Seeked` when
  /// the position moved in a way clients could not predict (``MPRISSeekDetector``).
  private func apply(_ new: PlayerState) {
    guard new.revision > state.revision else { return }
    let old = state
    state = new
    if new.index != old.index || new.track != old.track {
      metadata = MPRISMetadata.metadata(
        of: new, directory: directory, coverArt: new.track.flatMap { CoverArt.find(forTrackAt: $0.path) })
    }
    let updated = MPRISProperties.player(of: new, metadata: metadata)
    let changed = MPRISProperties.changes(from: properties, to: updated)
    properties = updated
    if !changed.isEmpty { announceChanges(changed) }
    if MPRISSeekDetector.jumped(from: old, to: new) { announceSeek() }
  }

  /// Emits `PropertiesChanged` with the new values of `names` (sd-bus reads them through ``get``).
  private func announceChanges(_ names: [String]) {
    var list: [UnsafeMutablePointer<CChar>?] = names.map { strdup($0) } + [nil]
    defer { for pointer in list { free(pointer) } }
    sd_bus_emit_properties_changed_strv(bus, SPLAY_MPRIS_PATH, SPLAY_MPRIS_PLAYER, &list)
  }

  /// Emits `Seeked` with the current position.
  private func announceSeek() {
    var signal: OpaquePointer?
    guard sd_bus_message_new_signal(bus, &signal, SPLAY_MPRIS_PATH, SPLAY_MPRIS_PLAYER, "Seeked") >= 0,
      let signal
    else { return }
    defer { sd_bus_message_unref(signal) }
    guard BusMessage.append(.int64(MPRISProperties.position(of: state, at: now())), to: signal) >= 0 else { return }
    sd_bus_send(bus, signal, nil)
    seekedRevision = state.revision
  }
}
