import Futures

/// Everything that can go wrong in the player, each case saying what happened and what to do next.
///
/// Every case has a stable machine ``code`` (used in JSON replies and in scripts' `expect error CODE`) and a
/// one-line human ``message``.
public enum PlayerError: Error, Equatable, Hashable, Sendable {
  /// No file exists at the path.
  case fileNotFound(path: String)
  /// The file exists but this user may not read it.
  case permissionDenied(path: String)
  /// The path names a directory, a FIFO, a device or something else that is not a regular file.
  case notAFile(path: String)
  /// A folder or playlist holds nothing that can be played.
  case noTracks(path: String)
  /// The decoder could not read the file; `detail` is the decoder's own explanation.
  case unsupportedFormat(path: String, detail: String)
  /// A stream (an `http://` or `https://` URL) could not be opened or read: `detail` says how (no answer within
  /// the time allowed, a refused connection, an HTTP status).
  case streamFailed(url: String, detail: String)
  /// The audio server could not be reached at `server`.
  case outputUnavailable(server: String, detail: String)
  /// The audio server at `server` has no sink named `sink` (the one `--sink` or the config asked for).
  case sinkNotFound(server: String, sink: String)
  /// The connection to the audio server was lost while in use.
  case outputLost(detail: String)
  /// The server answered, but refused or failed the operation.
  case outputFailed(operation: String, detail: String)
  /// The command does not apply in the player's current state; nothing was changed.
  case invalidState(command: String, state: String)
  /// The output did not confirm `command` within the deadline.
  case timeout(command: String, seconds: Double)
  /// The command was cancelled, or superseded by a newer command of the same kind, before it took effect.
  case cancelled
  /// A bounded resource (queue length, request size, clients) is full.
  case limitExceeded(what: String, limit: Int)

  /// The stable, kebab-case code of the error, for JSON and `expect error`.
  public var code: String {
    switch self {
    case .fileNotFound: "file-not-found"
    case .permissionDenied: "permission-denied"
    case .notAFile: "not-a-file"
    case .noTracks: "no-tracks"
    case .unsupportedFormat: "unsupported-format"
    case .streamFailed: "stream-failed"
    case .outputUnavailable: "output-unavailable"
    case .sinkNotFound: "sink-not-found"
    case .outputLost: "output-lost"
    case .outputFailed: "output-failed"
    case .invalidState: "invalid-state"
    case .timeout: "timeout"
    case .cancelled: "cancelled"
    case .limitExceeded: "limit-exceeded"
    }
  }

  /// A one-line message that names the file, command or server concerned and says what to do next.
  public var message: String {
    switch self {
    case .fileNotFound(let path): "\(path): no such file"
    case .permissionDenied(let path): "\(path): permission denied (check the file's mode and owner)"
    case .notAFile(let path): "\(path): not a regular file"
    case .noTracks(let path): "\(path): no audio files in it"
    case .unsupportedFormat(let path, let detail): "\(path): cannot decode: \(detail)"
    case .streamFailed(let url, let detail): "\(url): \(detail)"
    case .outputUnavailable(let server, let detail):
      "no audio server at \(server): \(detail) (start PulseAudio or PipeWire-pulse, or use --output simulated)"
    case .sinkNotFound(let server, let sink):
      "the audio server at \(server) has no sink named '\(sink)' ('pactl list short sinks' lists them)"
    case .outputLost(let detail): "lost the audio server: \(detail)"
    case .outputFailed(let operation, let detail): "the audio server refused \(operation): \(detail)"
    case .invalidState(let command, let state):
      // "at the end of the queue" is a place and "for track 99: …" a target, not a status.
      state.hasPrefix("at ") || state.hasPrefix("for ") || state.hasPrefix("in ")
        ? "\(command) is not possible \(state)" : "\(command) is not possible while \(state)"
    case .timeout(let command, let seconds): "\(command) was not confirmed within \(formatSeconds(seconds)) s"
    case .cancelled: "cancelled before it took effect"
    case .limitExceeded(let what, let limit): "too many \(what) (the limit is \(limit))"
    }
  }

  /// True for errors about a file or a stream (its exit code is 3 in the CLI).
  public var isFileError: Bool {
    switch self {
    case .fileNotFound, .permissionDenied, .notAFile, .noTracks, .unsupportedFormat, .streamFailed: true
    default: false
    }
  }

  /// True for errors about the audio server (its exit code is 4 in the CLI).
  public var isOutputError: Bool {
    switch self {
    case .outputUnavailable, .sinkNotFound, .outputLost: true
    default: false
    }
  }
}

extension PlayerError: CancellableFailure {}

extension PlayerError: CustomStringConvertible {
  /// The ``message``.
  public var description: String { message }
}
