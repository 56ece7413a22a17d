import PlayerCore

extension TrackListExpander {
  /// What a `load` or `enqueue` of folders and playlists comes to.
  public struct ExpandedCommand: Sendable, Equatable {
    /// The command with its paths expanded; a ``PlayerError/noTracks(path:)`` failure when none is left.
    public var command: Result<PlayerCommand, PlayerError>
    /// Entries left out, one line each.
    public var skipped: [SkippedEntry]
  }

  /// `command` with the folders and playlists of a `load` or `enqueue` expanded; any other command, or one
  /// that names files only, is returned as it is (files are the decoder's to judge when they are opened).
  public func expand(_ command: PlayerCommand) -> ExpandedCommand {
    let paths: [String]
    let rebuild: ([String]) -> PlayerCommand
    switch command {
    case .load(let named):
      paths = named
      rebuild = PlayerCommand.load
    case .enqueue(let named):
      paths = named
      rebuild = PlayerCommand.enqueue
    default:
      return ExpandedCommand(command: .success(command), skipped: [])
    }
    guard Self.needsExpansion(paths) else { return ExpandedCommand(command: .success(command), skipped: []) }
    let list = expand(paths)
    guard !list.paths.isEmpty else {
      // The failure names the folders; their own "no audio files" lines would only repeat it.
      let others = list.skipped.filter { if case .noTracks = $0.error { false } else { true } }
      return ExpandedCommand(command: .failure(.noTracks(path: paths.joined(separator: ", "))), skipped: others)
    }
    return ExpandedCommand(command: .success(rebuild(list.paths)), skipped: list.skipped)
  }
}
