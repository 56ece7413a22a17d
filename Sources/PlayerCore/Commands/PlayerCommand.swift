/// The one command vocabulary of splay: key bindings, scripts and the control socket all produce these.
///
/// The text form is parsed by ``CommandParser`` (`seek +5`, `volume 40%`, `load "a b.flac" c.mp3`) and
/// printed back by ``description``; the JSON form (`{"command": "seek", "args": ["+5"]}`) is the Codable
/// conformance. Both round-trip.
public enum PlayerCommand: Equatable, Hashable, Sendable {
  /// Replaces the queue with `paths` and opens the first track, stopped at 0.
  case load([String])
  /// Appends `paths` to the queue; on an idle player this opens the first of them like `load`.
  case enqueue([String])
  /// Starts or resumes playback; succeeds without change while already playing.
  case play
  /// Pauses; succeeds without change while already paused.
  case pause
  /// Pauses when playing, plays otherwise.
  case toggle
  /// Stops and rewinds the current track to 0.
  case stop
  /// Moves the position in the current track.
  case seek(SeekTarget)
  /// Changes the output volume.
  case volume(VolumeChange)
  /// Mutes or unmutes the stream at the server (its mute flag; the volume stays); nil toggles.
  case mute(Bool?)
  /// Opens the next track of the queue, keeping playing or paused as it was.
  case next
  /// Opens the previous track of the queue.
  case previous
  /// Opens the track at a zero-based queue index; the text form and the wire count from 1 (`jump 1` is
  /// `.jump(toIndex: 0)`).
  case jump(toIndex: Int)
  /// Sets what happens at the end of a track and of the queue (`repeat off|all|one`).
  case repeatMode(RepeatMode)
  /// Plays the queue in a random order, or in its own (`shuffle on|off`). The queue itself keeps its order.
  case shuffle(Bool)

  /// The command's name as typed: `seek`, `volume`, `load` …
  public var name: String {
    switch self {
    case .load: "load"
    case .enqueue: "enqueue"
    case .play: "play"
    case .pause: "pause"
    case .toggle: "toggle"
    case .stop: "stop"
    case .seek: "seek"
    case .volume: "volume"
    case .mute: "mute"
    case .next: "next"
    case .previous: "previous"
    case .jump: "jump"
    case .repeatMode: "repeat"
    case .shuffle: "shuffle"
    }
  }

  /// The arguments in their text form, quoted where a path needs it.
  public var arguments: [String] {
    switch self {
    case .load(let paths), .enqueue(let paths): paths
    case .play, .pause, .toggle, .stop, .next, .previous: []
    case .seek(let target): [target.text]
    case .volume(let change): [change.text]
    case .mute(let on): on.map { [$0 ? "on" : "off"] } ?? []
    case .jump(let index): [String(index + 1)]
    case .repeatMode(let mode): [mode.rawValue]
    case .shuffle(let on): [on ? "on" : "off"]
    }
  }
}

extension PlayerCommand: CustomStringConvertible {
  /// The canonical text form, which ``CommandParser`` parses back to the same command.
  public var description: String {
    ([name] + arguments.map(CommandTokenizer.quoteIfNeeded)).joined(separator: " ")
  }
}

/// Where a seek goes.
public enum SeekTarget: Equatable, Hashable, Sendable {
  /// Seconds from the start of the track (`seek 12.5`, `seek 1:30`).
  case absolute(Double)
  /// Seconds from the current confirmed position (`seek +5`, `seek -5`).
  case relative(Double)
  /// Percent of the track's duration, 0–100 (`seek 50%`).
  case percent(Double)

  /// The text form: `12.5`, `+5`, `-5`, `50%`.
  public var text: String {
    switch self {
    case .absolute(let s): decimalText(s)
    case .relative(let s): (s.sign == .minus ? "-" : "+") + decimalText(abs(s))
    case .percent(let p): decimalText(p) + "%"
    }
  }

  /// The target in seconds, given where the track is and how long it is, clamped to `0...duration`.
  public func resolve(from current: Double, duration: Double) -> Double {
    let raw: Double
    switch self {
    case .absolute(let s): raw = s
    case .relative(let s): raw = current + s
    case .percent(let p): raw = duration * p / 100
    }
    return min(max(raw, 0), max(duration, 0))
  }
}

/// How the volume changes.
public enum VolumeChange: Equatable, Hashable, Sendable {
  /// A level in percent, 0–100 (`volume 40`, `volume 40%`).
  case absolute(Int)
  /// A step in percent (`volume +5`, `volume -10`).
  case relative(Int)

  /// The text form: `40%`, `+5`, `-10`.
  public var text: String {
    switch self {
    case .absolute(let p): "\(p)%"
    case .relative(let p): p < 0 ? "\(p)" : "+\(p)"
    }
  }

  /// The resulting level in percent, clamped to 0–100.
  public func resolve(from current: Int) -> Int {
    switch self {
    case .absolute(let p): min(max(p, 0), 100)
    case .relative(let p): min(max(current + p, 0), 100)
    }
  }
}
