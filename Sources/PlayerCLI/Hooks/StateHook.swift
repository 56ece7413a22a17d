import ControlProtocol
import Dispatch
import Futures
import PlayerCore

/// A command a person runs on confirmed states (scrobblers, notifications, status bars): `on-track` on each new
/// current track, `on-state` on every published state. It runs on a thread of its own, never two at once: states
/// that arrive while it runs wait as the latest one only, and the run that gets it is told how many it skipped
/// (`SPLAY_SKIPPED`). Playback and the controller never wait for it; a failure is reported, not fatal.
final class StateHook: Sendable {
  /// Which states a hook runs on.
  enum Kind: String, Sendable {
    case track = "on-track"
    case state = "on-state"
  }

  private struct Runs {
    var running = false
    var pending: PlayerState?
    /// States replaced while waiting since the last run started.
    var skipped = 0
    /// The current track last seen (its place and file), for `on-track`.
    var track: (index: Int?, path: String)?
    /// The last failure reported: the same one again is not (a status-bar hook that fails fails on every state).
    var lastFailure: String?
  }

  let kind: Kind
  let command: String
  private let runs = Lock(Runs())
  private let queue: DispatchQueue
  private let report: @Sendable (String) -> Void

  /// A hook of `kind` running `command` with `/bin/sh -c`; `report` hears each failure.
  init(_ kind: Kind, command: String, report: @escaping @Sendable (String) -> Void) {
    self.kind = kind
    self.command = command
    self.report = report
    queue = DispatchQueue(label: "splay.hook.\(kind.rawValue)")
  }

  /// Takes a published state: runs the command on it now, or after the run in progress if no later state comes.
  func offer(_ state: PlayerState) {
    let start = runs.withLock { runs -> Bool in
      if kind == .track {
        guard let path = state.track?.path, runs.track?.index != state.index || runs.track?.path != path else {
          return false
        }
        runs.track = (state.index, path)
      }
      if runs.pending != nil { runs.skipped += 1 }
      runs.pending = state
      guard !runs.running else { return false }
      runs.running = true
      return true
    }
    if start { queue.async { self.drain() } }
  }

  /// Whether a run is in progress or waiting.
  var isBusy: Bool { runs.withLock { $0.running } }

  private func drain() {
    while let (state, skipped) = runs.withLock({ runs -> (PlayerState, Int)? in
      guard let state = runs.pending else {
        runs.running = false
        return nil
      }
      defer {
        runs.pending = nil
        runs.skipped = 0
      }
      return (state, runs.skipped)
    }) {
      run(state, skipped: skipped)
    }
  }

  private func run(_ state: PlayerState, skipped: Int) {
    let input = Array((state.jsonText + "\n").utf8)
    let failure: String?
    switch HookProcess.run(command, input: input, environment: Self.environment(state, kind: kind, skipped: skipped)) {
    case .success(0): failure = nil
    case .success(let status): failure = "exit status \(status)"
    case .failure(let reason): failure = reason.description
    }
    let changed = runs.withLock { runs in
      defer { runs.lastFailure = failure }
      return runs.lastFailure != failure
    }
    if let failure, changed { report("\(kind.rawValue) hook failed: \(failure) (\(command))") }
  }

  /// The variables a hook finds beside the JSON on its standard input.
  static func environment(_ state: PlayerState, kind: Kind, skipped: Int) -> [String: String] {
    var variables = [
      "SPLAY_HOOK": kind.rawValue, "SPLAY_STATUS": state.status.name, "SPLAY_VOLUME": String(state.volume),
      "SPLAY_QUEUE_LENGTH": String(state.queueLength), "SPLAY_SKIPPED": String(skipped),
      "SPLAY_POSITION": String(state.position.seconds),
    ]
    if let index = state.index { variables["SPLAY_INDEX"] = String(index + 1) }
    if let track = state.track {
      variables["SPLAY_PATH"] = track.path
      variables["SPLAY_TITLE"] = track.displayTitle
      variables["SPLAY_ARTIST"] = track.artist ?? ""
      variables["SPLAY_ALBUM"] = track.album ?? ""
      // Empty for a live stream, which has no length.
      variables["SPLAY_DURATION"] = track.isLive ? "" : String(track.duration)
    }
    return variables
  }
}
