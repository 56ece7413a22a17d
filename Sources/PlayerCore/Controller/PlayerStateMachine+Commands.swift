// A caller's request: what each command, a refresh, a reconnection and a restored session need.
extension PlayerStateMachine {
  /// What the controller does with a caller's request.
  public enum CommandAction: Equatable, Sendable {
    /// The request does not apply; nothing changes.
    case reject(PlayerError)
    /// The request succeeds without the output (play while playing, enqueue): publish `state` through
    /// ``apply(_:)`` when there is one, then answer with the current state.
    case complete(PlayerState?)
    /// Ask the output for this step, then hand its answer to ``answer(_:_:)``.
    case perform(OutputStep)
  }

  /// Decides what `command` needs, without changing anything: a `.complete` state is published by
  /// ``apply(_:)``, so that the controller may look at a decision on a caller's thread and act on it later.
  public func decide(_ command: PlayerCommand) -> CommandAction {
    let status = state.status
    func invalid() -> CommandAction {
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
      case .playing, .paused:
        // A live stream cannot go back to its start: it is opened again, stopped, and `play` hears it from now.
        if let track = state.track, track.isLive, let index = state.index {
          return .perform(.open(queue: state.queue, index: index, seconds: 0, then: .stopped))
        }
        return .perform(.stop)
      case .stopped: return .complete(nil)
      default: return invalid()
      }
    case .seek(let target):
      guard status.hasOpenTrack, let track = state.track else { return invalid() }
      if track.isLive { return .reject(.invalidState(command: command.name, state: "in a live stream")) }
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
    // A live stream has no start to go back to.
    guard let track = state.track, let index = state.index, !track.isLive else { return .previous }
    let position = state.position.estimated(at: now, limit: track.duration)
    guard position <= Self.restartThreshold, indexInPlayOrder(from: index, by: -1) != nil else {
      return .seek(.absolute(0))
    }
    return .previous
  }

  /// Publishes a state decided as `.complete(state)`; returns it with its new revision, or nil when it did not
  /// differ.
  public mutating func apply(_ completed: PlayerState) -> PlayerState? {
    publish(completed)
  }

  /// What a refresh needs: the output's status while a track is open (only that has a position the server can
  /// confirm), otherwise nothing but the current state.
  public func refresh() -> CommandAction {
    state.status.hasOpenTrack ? .perform(.status) : .complete(nil)
  }

  /// What brings the player back after the output lost its server: reopening the current track corked at the
  /// last confirmed position, which then reads `paused` there. Rejected unless the status is
  /// `failed(output-lost)` (another command brought the player back already, or nothing was loaded).
  public func recover() -> CommandAction {
    guard case .failed(.outputLost) = state.status, let index = state.index, index < state.queue.count else {
      return .reject(.invalidState(command: "reconnect", state: state.status.name))
    }
    // A live stream comes back from now: it cannot seek to where it was.
    let seconds = state.track?.isLive == true ? 0 : state.position.seconds
    return .perform(.open(queue: state.queue, index: index, seconds: seconds, then: .paused))
  }

  /// What brings back a saved session (``PlayerController/restore(queue:index:at:)``): `queue` with track
  /// `index` open and corked at `seconds`, which then reads `paused` there, so that `play` continues where the
  /// session was. Rejected for an empty or too long queue, or an index outside it.
  public func restore(queue: [String], index: Int, seconds: Double) -> CommandAction {
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

  /// Moving through the queue keeps the player playing, paused or stopped as it was.
  private var continuation: OutputStep.StatusAfterOpen {
    switch state.status {
    case .playing: .playing
    case .paused: .paused
    default: .stopped
    }
  }
}
