// What a test controls of the simulated output (which acknowledgement each operation gets) and what it reads
// back (the frames that reached the virtual speakers).
extension SimulatedOutput {
  /// The operations whose acknowledgements can be controlled.
  public enum Operation: String, CaseIterable, Sendable {
    case open, start, pause, seek, stop, volume, status, close

    /// The operation's place in the table of acknowledgements.
    var slot: Int {
      switch self {
      case .open: 0
      case .start: 1
      case .pause: 2
      case .seek: 3
      case .stop: 4
      case .volume: 5
      case .status: 6
      case .close: 7
      }
    }
  }

  /// How the output acknowledges an operation.
  public enum Acknowledgement: Equatable, Sendable {
    /// At once, in the call.
    case immediate
    /// After this much virtual time.
    case after(Duration)
    /// Not until ``SimulatedOutput/releaseHeld()``.
    case hold
    /// Refused with this error; nothing changes.
    case fail(PlayerError)
    /// Done, but never answered.
    case drop
  }

  /// A run of consecutive frames of one track that reached the (virtual) speakers.
  public struct PlayedSegment: Equatable, Sendable {
    /// The track's path.
    public var path: String
    /// First frame played.
    public var startFrame: Int64
    /// One past the last frame played.
    public var endFrame: Int64
  }
}
