/// A method call or property write that a client sent to splay's MPRIS object, with its arguments read.
public enum MPRISRequest: Equatable, Sendable {
  /// `org.mpris.MediaPlayer2.Raise`: splay has no window to raise.
  case raise
  /// `org.mpris.MediaPlayer2.Quit`.
  case quit
  /// `Play`.
  case play
  /// `Pause`.
  case pause
  /// `PlayPause`.
  case playPause
  /// `Stop`.
  case stop
  /// `Next`.
  case next
  /// `Previous`.
  case previous
  /// `Seek(x Offset)`: microseconds from the current position, negative backwards.
  case seek(offset: Int64)
  /// `SetPosition(o TrackId, x Position)`: microseconds from the start of the track the id names.
  case setPosition(trackID: String, position: Int64)
  /// `OpenUri(s Uri)`.
  case openURI(String)
  /// A write of `LoopStatus`.
  case setLoopStatus(String)
  /// A write of `Rate`.
  case setRate(Double)
  /// A write of `Shuffle`.
  case setShuffle(Bool)
  /// A write of `Volume` (0.0–1.0).
  case setVolume(Double)

  /// What to do for this request in `state` (the last confirmed one). Pure.
  ///
  /// Commands go to the controller and the reply waits for their futures; what the spec says to ignore (a
  /// `SetPosition` for another track or out of it, a `Rate` other than 0) succeeds without a command.
  public func action(in state: PlayerState) -> MPRISAction {
    switch self {
    case .raise: return .nothing
    case .quit: return .quit
    case .play: return .send([.play])
    case .pause: return .send([.pause])
    case .playPause: return .send([.toggle])
    case .stop: return .send([.stop])
    case .next: return .send([.next])
    case .previous: return .send([.previous])
    case .seek(let offset): return .send([.seek(.relative(Double(offset) / 1e6))])
    case .setPosition(let trackID, let position):
      // The spec: a stale track id, or a position outside the track, is ignored.
      guard trackID == MPRISMetadata.trackID(of: state), trackID != MPRISMetadata.noTrack, position >= 0,
        let track = state.track, !track.isLive, Double(position) / 1e6 <= track.duration
      else { return .nothing }
      return .send([.seek(.absolute(Double(position) / 1e6))])
    case .openURI(let uri):
      guard let path = StreamURL.isStream(uri) ? uri : FileURL.path(from: uri) else {
        return .refuse(.invalidArguments("splay opens file:// URIs of local files and http(s) streams, not \(uri)"))
      }
      return .send([.load([path]), .play])
    case .setLoopStatus(let name):
      guard let mode = MPRISProperties.repeatMode(loopStatus: name) else {
        return .refuse(.invalidArguments("LoopStatus is None, Track or Playlist, not \(name)"))
      }
      return .send([.repeatMode(mode)])
    case .setRate(let rate):
      // The spec: 0.0 acts as Pause; splay plays at 1.0 only, and other rates are ignored.
      return rate == 0 ? .send([.pause]) : .nothing
    case .setShuffle(let on): return .send([.shuffle(on)])
    case .setVolume(let level):
      guard !level.isNaN else { return .refuse(.invalidArguments("Volume is a number from 0.0 to 1.0")) }
      // The spec: below 0.0 is 0.0. Above 1.0 is more than splay's 100 %, so that too is clamped.
      return .send([.volume(.absolute(Int((min(max(level, 0), 1) * 100).rounded())))])
    }
  }
}

/// What splay does for an ``MPRISRequest``.
public enum MPRISAction: Equatable, Sendable {
  /// Sends the commands in order; the reply waits until the last is confirmed, or the first fails.
  case send([PlayerCommand])
  /// Replies, then quits.
  case quit
  /// Replies at once: nothing to do.
  case nothing
  /// Replies at once with this error.
  case refuse(MPRISError)
}

/// A D-Bus error for a reply: its name and message.
public struct MPRISError: Error, Equatable, Sendable {
  /// The error name, such as `org.splay.Error.InvalidState`.
  public var name: String
  /// One line for people, such as the ``PlayerError/message``.
  public var message: String

  /// Creates an error reply.
  public init(name: String, message: String) {
    self.name = name
    self.message = MPRISValue.busText(message)
  }

  /// The error of a command the player refused or could not carry out: `org.splay.Error.` and the error's code
  /// in CamelCase (`invalid-state` → `InvalidState`), with its message.
  public init(_ error: PlayerError) {
    let words = error.code.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }
    self.init(name: "org.splay.Error." + words.joined(), message: error.message)
  }

  /// Arguments the method does not take (the standard D-Bus error).
  public static func invalidArguments(_ message: String) -> MPRISError {
    MPRISError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
  }

  /// The error of a command whose wait was abandoned: it was superseded by a newer seek, or splay is quitting.
  public static let cancelled = MPRISError(PlayerError.cancelled)
}
