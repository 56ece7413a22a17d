/// The player's logic as a value: it takes commands, acknowledgements and output events, and returns what to
/// do and what to publish. No I/O, no clocks, no threads — ``PlayerController`` performs what it decides, and
/// tests drive it directly.
///
/// The rule it enforces is the product's: ``state`` changes only in ``confirm(_:_:)`` (an acknowledgement)
/// and ``handle(_:)`` (an output event), and every change increments the revision.
public struct PlayerStateMachine: Sendable {
  /// What to do with a command.
  public enum Decision: Equatable, Sendable {
    /// The command does not apply; nothing changes.
    case reject(PlayerError)
    /// The command succeeds without the output (play while playing, enqueue). `state` is published when it
    /// differs from the current one.
    case complete(PlayerState?)
    /// Ask the output for this step; call ``confirm(_:_:)`` or ``fail(_:_:)`` with the outcome.
    case perform(OutputStep)
  }

  /// What an output event requires.
  public enum EventReaction: Equatable, Sendable {
    /// Publish this state (already applied).
    case publish(PlayerState)
    /// Open the next track of the queue: perform this step as an internal command.
    case perform(OutputStep)
    /// Nothing to do.
    case ignore
  }

  /// The most tracks a queue holds; `load`/`enqueue` beyond it fail with `limit-exceeded`.
  public static let maximumQueueLength = 1_000_000

  /// The confirmed state.
  public private(set) var state: PlayerState

  /// The output stream the current track plays on, from its `open` confirmation; events about other
  /// streams are stale.
  var streamNumber: UInt64?

  /// Where the last track finished, kept while the controller moves on to the next one.
  var finished: OutputConfirmation?
  /// Whether the volume was set by a `volume` command: new streams are then opened at it, overriding a volume
  /// the server's session manager restores; until then they take the server's.
  public private(set) var volumeIsExplicit = false

  /// The volume a new stream is opened at: the one a `volume` command set, or nil to take the server's.
  public var volumeForNewStream: Int? { volumeIsExplicit ? state.volume : nil }

  /// The order the queue plays in, for the decoder factory to choose a ReplayGain by.
  public var playOrder: PlayOrder { state.shuffle ? .shuffled : .inOrder }

  /// Whether a refresh asks the output: only a track that is open has a position the server can confirm.
  public var refreshAsksOutput: Bool { state.status.hasOpenTrack }

  /// How far into a track "back" restarts it instead of going to the previous one, in seconds.
  public static let restartThreshold = 3.0
  /// The last track offered to the output for gapless playback (``takeOffer()``).
  var offered: UpcomingTrack?

  /// Starts from `state` (by default, nothing loaded at full volume). The shuffle order is drawn from a
  /// generator seeded with `shuffleSeed`: a test passes one to get the same order on every run.
  public init(state: PlayerState = .initial, shuffleSeed: UInt64 = .random(in: .min ... .max)) {
    self.state = state
    random = SplitMix64(seed: shuffleSeed)
  }

  /// With `shuffle` on: the order the queue plays in, the current track first. Drawn again when the queue is
  /// replaced or the shuffle is turned on; tracks appended join it among those still to play.
  private var shuffleOrder = ShuffleOrder()
  /// Where the shuffle orders come from; part of the value, so that a copy of the machine draws the same.
  private var random: SplitMix64

  /// Decides what `command` needs, without changing anything.
  public func decide(_ command: PlayerCommand) -> Decision {
    let status = state.status
    func invalid() -> Decision {
      .reject(.invalidState(command: command.name, state: status.name))
    }
    switch command {
    case .load(let paths):
      guard paths.count <= Self.maximumQueueLength else {
        return .reject(.limitExceeded(what: "tracks in the queue", limit: Self.maximumQueueLength))
      }
      return .perform(
        .open(queue: TrackQueue(paths), index: startIndex(count: paths.count), seconds: 0, then: .stopped))
    case .enqueue(let paths):
      guard state.queue.count + paths.count <= Self.maximumQueueLength else {
        return .reject(.limitExceeded(what: "tracks in the queue", limit: Self.maximumQueueLength))
      }
      if status == .idle {
        return .perform(
          .open(queue: TrackQueue(paths), index: startIndex(count: paths.count), seconds: 0, then: .stopped))
      }
      var next = state
      next.queue += paths
      return .complete(next)
    case .play:
      switch status {
      case .playing: return .complete(nil)
      case .paused, .stopped: return .perform(.start)
      case .ended: return .perform(.open(queue: state.queue, index: 0, seconds: 0, then: .playing))
      case .failed:
        guard let index = state.index else { return invalid() }
        return .perform(.open(queue: state.queue, index: index, seconds: state.position.seconds, then: .playing))
      case .idle: return invalid()
      }
    case .pause:
      switch status {
      case .playing: return .perform(.pause)
      case .paused: return .complete(nil)
      default: return invalid()
      }
    case .toggle:
      return status == .playing ? decide(.pause) : decide(.play)
    case .stop:
      switch status {
      case .playing, .paused: return .perform(.stop)
      case .stopped: return .complete(nil)
      default: return invalid()
      }
    case .seek(let target):
      guard status.hasOpenTrack, let track = state.track else { return invalid() }
      if case .relative(let delta) = target, status == .playing {
        return .perform(.seekBy(delta, duration: track.duration))
      }
      return .perform(.seek(target.resolve(from: state.position.seconds, duration: track.duration)))
    case .volume(let change):
      return .perform(.volume(change.resolve(from: state.volume)))
    case .mute(let on):
      return .perform(.mute(on ?? !state.muted))
    case .next:
      guard status.hasOpenTrack, let index = state.index else { return invalid() }
      guard let next = indexInPlayOrder(from: index, by: 1) else {
        return .reject(.invalidState(command: command.name, state: "at the end of the queue"))
      }
      return .perform(.open(queue: state.queue, index: next, seconds: 0, then: continuation))
    case .previous:
      guard status.hasOpenTrack, let index = state.index else { return invalid() }
      guard let previous = indexInPlayOrder(from: index, by: -1) else {
        return .reject(.invalidState(command: command.name, state: "at the start of the queue"))
      }
      return .perform(.open(queue: state.queue, index: previous, seconds: 0, then: continuation))
    case .jump(let target):
      guard status != .idle else { return invalid() }
      guard target >= 0, target < state.queue.count else {
        // 1-based, as a person and the wire count tracks.
        let range = state.queue.count == 1 ? "only track 1" : "tracks 1–\(state.queue.count)"
        return .reject(.invalidState(command: command.name, state: "for track \(target + 1): the queue has \(range)"))
      }
      let then: OutputStep.StatusAfterOpen = status.hasOpenTrack ? continuation : .stopped
      return .perform(.open(queue: state.queue, index: target, seconds: 0, then: then))
    case .repeatMode(let mode):
      var next = state
      next.repeatMode = mode
      return .complete(next)
    case .shuffle(let on):
      var next = state
      next.shuffle = on
      return .complete(next)
    }
  }

  /// What "back" (the live view's `p`) means `now`: within the first ``restartThreshold`` seconds of the track,
  /// as estimated from the confirmed position, the previous track in play order; later, or with no track before
  /// this one in play order, this track again from its start.
  public func previousOrRestart(at now: UInt64) -> PlayerCommand {
    guard let track = state.track, let index = state.index else { return .previous }
    let position = state.position.estimated(at: now, limit: track.duration)
    guard position <= Self.restartThreshold, indexInPlayOrder(from: index, by: -1) != nil else {
      return .seek(.absolute(0))
    }
    return .previous
  }

  /// Where a new queue of `count` tracks starts: its first track, or with shuffle on a random one, which the
  /// shuffle order then starts from. The queue itself keeps its order, so that turning shuffle off plays on in it.
  private func startIndex(count: Int) -> Int {
    guard state.shuffle, count > 1 else { return 0 }
    // A copy: deciding changes nothing; the order drawn when the queue is published advances the generator.
    var draw = random
    return Int(draw.next() % UInt64(count))
  }

  /// The track that plays after `index` when it ends: itself when repeating one, otherwise ``indexInPlayOrder(from:by:)``.
  public func following(_ index: Int) -> Int? {
    state.repeatMode == .one && index < state.queue.count ? index : indexInPlayOrder(from: index, by: 1)
  }

  /// The track `delta` places from `index` in play order (the shuffle's, or the queue's), wrapping around
  /// when repeating all; nil past either end otherwise. `next` and `previous` go here whatever the repeat
  /// mode: repeating one track does not stop a person from moving on.
  public func indexInPlayOrder(from index: Int, by delta: Int) -> Int? {
    let count = state.queue.count
    guard count > 0 else { return nil }
    // An index outside the queue comes from a step whose new queue failed to open: it moves in queue order.
    let shuffled = state.shuffle && shuffleOrder.count == count && index >= 0 && index < count
    let position = shuffled ? shuffleOrder.place(of: index) : index
    var target = position + delta
    if !(0..<count).contains(target) {
      guard state.repeatMode == .all else { return nil }
      target = ((target % count) + count) % count
    }
    return shuffled ? shuffleOrder[target] : target
  }

  /// Moving through the queue keeps the player playing, paused or stopped as it was.
  private var continuation: OutputStep.StatusAfterOpen {
    switch state.status {
    case .playing: .playing
    case .paused: .paused
    default: .stopped
    }
  }

  /// Publishes a state computed by ``decide(_:)`` as `.complete(state)`; returns it with its new revision,
  /// or nil when it did not differ.
  public mutating func apply(_ completed: PlayerState) -> PlayerState? {
    publish(completed)
  }

  /// Applies the output's confirmation of `step`. Returns the state to publish, or nil when nothing changed.
  public mutating func confirm(_ step: OutputStep, _ result: StepResult) -> PlayerState? {
    var next = state
    if case .confirmed(let confirmation, nil) = result, let advance = confirmation.advance,
      confirmation.streamNumber != streamNumber, advance.from == streamNumber, let index = state.index,
      let advanced = advancedIndex(from: index, to: advance.track)
    {
      // The output moved on to the next track before it confirmed this step, and its trackAdvanced event waits
      // behind the step: the position counts from that track, so the move is taken first (the event is then
      // stale). A `play` at the end of a paused track confirmed the new track's position on the old one.
      next.index = advanced
      next.track = advance.track
      streamNumber = confirmation.streamNumber
    }
    switch (step, result) {
    case (.volume, .volume(let level)):
      next.volume = level
      volumeIsExplicit = true
    case (.mute, .mute(let muted)):
      next.muted = muted
    case (.open(let queue, let index, _, let then), .confirmed(let confirmation, let track)):
      next.queue = queue
      next.index = index
      next.track = track ?? next.track
      next.status = then.status(running: confirmation.running)
      next.position = position(confirmation)
      next.device = confirmation.device ?? next.device
      next.volume = confirmation.volume ?? next.volume
      streamNumber = confirmation.streamNumber
    case (.start, .confirmed(let confirmation, _)):
      next.status = .playing
      next.position = position(confirmation)
    case (.pause, .confirmed(let confirmation, _)):
      next.status = .paused
      next.position = position(confirmation)
    case (.seek, .confirmed(let confirmation, _)), (.seekBy, .confirmed(let confirmation, _)):
      next.position = position(confirmation)
    case (.stop, .confirmed(let confirmation, _)):
      next.status = .stopped
      next.position = position(confirmation)
    default:
      return nil
    }
    return publish(next)
  }

  /// Applies an output event. Only events that the output confirmed reach here.
  public mutating func handle(_ event: OutputEvent) -> EventReaction {
    switch event {
    case .trackFinished(let confirmation), .trackFailed(_, let confirmation):
      // A track cut short moves on like one that finished; the controller reports why.
      guard state.status == .playing, let index = state.index, confirmation.streamNumber == streamNumber else {
        return .ignore
      }
      if let next = following(index) {
        finished = confirmation
        return .perform(.open(queue: state.queue, index: next, seconds: 0, then: .playing))
      }
      var next = state
      next.status = .ended
      // The most recent confirmation wins: a seek confirmed after the stream had finished (it raced with the
      // end) moved the position, and the end event does not move it back.
      // At the same instant, the end came first: a seek applied first would have kept the track from ending.
      let latest =
        state.position.confirmedAt >= confirmation.time
        ? state.position.seconds : confirmation.position
      next.position = ConfirmedPosition(
        seconds: latest, confirmedAt: max(confirmation.time, state.position.confirmedAt), rate: 0)
      return publish(next).map(EventReaction.publish) ?? .ignore
    case .trackAdvanced(let previous, let confirmation, let track):
      // The output moved on to the next track it was offered, in the same stream. Whatever the status now
      // (a pause may have been confirmed just after the boundary), the output's current track is that one.
      guard state.status.hasOpenTrack, previous == streamNumber, let index = state.index,
        let advanced = advancedIndex(from: index, to: track)
      else { return .ignore }
      var next = state
      next.index = advanced
      next.track = track
      streamNumber = confirmation.streamNumber
      // A confirmation made after the boundary (that pause) already counts from the new track's start.
      if confirmation.time >= state.position.confirmedAt {
        next.position = position(confirmation)
      }
      return publish(next).map(EventReaction.publish) ?? .ignore
    case .confirmedLate(let confirmation):
      guard confirmation.streamNumber == streamNumber, let published = reconcile(confirmation) else { return .ignore }
      return .publish(published)
    case .deviceChanged(let device):
      var next = state
      next.device = device
      return publish(next).map(EventReaction.publish) ?? .ignore
    case .volumeChanged(let level):
      var next = state
      next.volume = level
      return publish(next).map(EventReaction.publish) ?? .ignore
    case .muteChanged(let muted):
      var next = state
      next.muted = muted
      return publish(next).map(EventReaction.publish) ?? .ignore
    case .lost(let error):
      guard state.status != .idle else { return .ignore }
      var next = state
      next.status = .failed(error)
      next.position.rate = 0
      return publish(next).map(EventReaction.publish) ?? .ignore
    case .underflow:
      return .ignore
    }
  }

  /// What brings the player back after the output lost its server: reopening the current track corked at the
  /// last confirmed position, which then reads `paused` there. Nil unless the status is `failed(output-lost)`.
  public var recovery: OutputStep? {
    guard case .failed(.outputLost) = state.status, let index = state.index, index < state.queue.count else {
      return nil
    }
    return .open(queue: state.queue, index: index, seconds: state.position.seconds, then: .paused)
  }

  /// What brings back a saved session (``PlayerController/restore(queue:index:at:)``): `queue` with track
  /// `index` open and corked at `seconds`, which then reads `paused` there, so that `play` continues where the
  /// session was. Rejected for an empty or too long queue, or an index outside it.
  public func restoration(queue: [String], index: Int, seconds: Double) -> Decision {
    guard queue.count <= Self.maximumQueueLength else {
      return .reject(.limitExceeded(what: "tracks in the queue", limit: Self.maximumQueueLength))
    }
    guard (0..<queue.count).contains(index) else {
      return .reject(.invalidState(command: "restore", state: "for track \(index + 1) of \(queue.count)"))
    }
    // Within a year: a position from a damaged file must not reach the output's frame arithmetic.
    let start = seconds.isFinite ? min(max(seconds, 0), 31_536_000) : 0
    return .perform(.open(queue: TrackQueue(queue), index: index, seconds: start, then: .paused))
  }

  func position(_ confirmation: OutputConfirmation) -> ConfirmedPosition {
    ConfirmedPosition(
      seconds: confirmation.position, confirmedAt: confirmation.time, rate: confirmation.running ? 1 : 0,
      movesAt: confirmation.running ? confirmation.movesAt : nil)
  }

  /// Consumes `next`, so that setting its revision writes the storage the caller's changes already own
  /// instead of copying it once more.
  mutating func publish(_ next: consuming PlayerState) -> PlayerState? {
    let queueChanged = next.queue != state.queue
    if queueChanged { next.queueRevision = state.queueRevision + 1 }
    guard !next.sameContent(as: state) else { return nil }
    if next.shuffle {
      let ordered = state.shuffle && shuffleOrder.count == state.queue.count
      if ordered, queueChanged, next.index == state.index, next.queue.hasPrefix(state.queue) {
        shuffleOrder.extend(to: next.queue.count, after: next.index, using: &random)
      } else if !ordered || queueChanged {
        shuffleOrder = .drawn(count: next.queue.count, first: next.index, using: &random)
      }
    }
    next.revision = state.revision + 1
    state = next
    return state
  }
}
