import PlayerCore

/// A parsed playback script: player commands, waits and expectations, one per line.
///
/// ```
/// load fixtures/media/ladder-44k-stereo.flac
/// play
/// wait 0.5
/// pause
/// expect state paused
/// expect position 0.5 ± 0.1
/// ```
public struct PlaybackScript: Equatable, Sendable {
  /// One line that does something, with its 1-based line number.
  public struct Step: Equatable, Sendable {
    /// The line number in the script, counting from 1.
    public var line: Int
    /// What the line says.
    public var action: ScriptAction
    /// The line as written, without its comment (for reports).
    public var text: String
    /// The included script the line is in (`include FILE`), or nil for the script run.
    public var file: String?

    /// A step of line `line` that does `action`, written as `text`, in the included script `file` (nil: the
    /// script run).
    public init(line: Int, action: ScriptAction, text: String = "", file: String? = nil) {
      self.line = line
      self.action = action
      self.text = text
      self.file = file
    }

    /// `FILE:LINE`, the file being `script`'s name unless the line is in an included script.
    public func place(in script: PlaybackScript) -> String {
      "\(file ?? script.name):\(line)"
    }
  }

  /// Where the script came from (a path or `-`), for messages.
  public var name: String
  /// The steps in order; comments and blank lines are gone, `repeat` blocks repeated.
  public var steps: [Step]
  /// The known failure the script declares (`expect-failure`), if any.
  public var expectedFailure: ExpectedFailure?
  /// The rules checked during the whole run (`check always …`).
  public var invariants: [ScriptInvariant] = []

  /// A failure a script declares known with `expect-failure ["TEXT"]`: the script passes while it fails (with a
  /// message that contains `text`, when given) and fails once it passes, so that a fixed issue is noticed.
  public struct ExpectedFailure: Equatable, Sendable {
    /// The line of the declaration.
    public var line: Int
    /// What the failure's message must contain; nil for any failure.
    public var text: String?

    /// A declaration on line `line`.
    public init(line: Int, text: String?) {
      self.line = line
      self.text = text
    }

    /// Whether a failure with `message` is the one declared.
    public func matches(_ message: String) -> Bool {
      text.map { message.contains($0) } ?? true
    }
  }

  /// Whether a line or a rule needs the server seen from beside the player (`expect audio`,
  /// `check always state-matches-server`).
  public var asksTheServer: Bool {
    invariants.contains(.stateMatchesServer)
      || steps.contains { step in
        if case .expect(.audio) = step.action { return true }
        return false
      }
  }

  /// Creates a script from steps.
  public init(name: String, steps: [Step], expectedFailure: ExpectedFailure? = nil) {
    self.name = name
    self.steps = steps
    self.expectedFailure = expectedFailure
  }
}

/// What one script line does.
public enum ScriptAction: Equatable, Sendable {
  /// Sends a player command and waits for its future.
  case command(PlayerCommand)
  /// Lets time pass.
  case wait(seconds: Double)
  /// Waits until the confirmed state has `status`, failing after `timeout` seconds.
  case waitUntil(status: String, timeout: Double)
  /// Checks a confirmed value.
  case expect(Expectation)
  /// Checks that the previous command failed with this error code.
  case expectError(code: String)
  /// Waits for `point` (`at 5.0`, `on track 3`), then sends `command` and waits for its future.
  case at(TriggerPoint, PlayerCommand)
  /// Waits for `point` (`wait until position >= 12.5`, `wait until track 2`) while playback can still reach it.
  case waitFor(TriggerPoint)

  /// Whether the line's command moves the position on purpose (a seek, a stop, another track or queue).
  public var repositions: Bool {
    let command: PlayerCommand
    switch self {
    case .command(let sent), .at(_, let sent): command = sent
    default: return false
    }
    switch command {
    case .seek, .load, .jump, .next, .previous, .stop, .play: return true
    default: return false
    }
  }
}

/// A check of the confirmed state.
public enum Expectation: Equatable, Sendable {
  /// The status name (`playing`, `paused`, …).
  case state(String)
  /// The position in seconds, within a tolerance.
  case position(Double, tolerance: Double)
  /// The volume in percent.
  case volume(Int)
  /// The 1-based queue index of the current track.
  case track(Int)
  /// The current track's title (its tag, or its file name when untagged).
  case title(String)
  /// The audio at the sink (`expect audio playing 12 ± 1ms`, `expect audio silent`).
  case audio(AudioCheck)
}

extension PlaybackScript {
  /// The script with relative paths in `load` and `enqueue` taken from `directory` (the script's own folder),
  /// so that a script runs the same from anywhere.
  public func resolvingPaths(relativeTo directory: String) -> PlaybackScript {
    var copy = self
    copy.steps = steps.map { step in
      // An included script's paths were taken from its own folder when it was included.
      guard step.file == nil else { return step }
      return step.resolvingPaths(relativeTo: directory)
    }
    return copy
  }
}

extension PlaybackScript.Step {
  /// The step with relative paths in `load` and `enqueue` taken from `directory`.
  func resolvingPaths(relativeTo directory: String) -> PlaybackScript.Step {
    func resolve(_ path: String) -> String {
      path.hasPrefix("/") || directory.isEmpty || StreamURL.isStream(path) ? path : directory + "/" + path
    }
    func resolve(_ command: PlayerCommand) -> PlayerCommand {
      switch command {
      case .load(let paths): .load(paths.map(resolve))
      case .enqueue(let paths): .enqueue(paths.map(resolve))
      default: command
      }
    }
    var step = self
    switch action {
    case .command(let command): step.action = .command(resolve(command))
    case .at(let point, let command): step.action = .at(point, resolve(command))
    default: break
    }
    return step
  }
}
