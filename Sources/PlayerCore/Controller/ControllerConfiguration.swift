import Futures

/// How a ``PlayerController`` waits on its output and reports what it skipped.
public struct ControllerConfiguration: Sendable {
  /// How long the output has to confirm a step before the command fails with `timeout` (default 3 s).
  public var deadline: Duration
  /// The clock the deadline is measured on; tests and the simulated output pass a ``VirtualClock``.
  public var clock: any Clock<Duration>
  /// Told of each track that could not be opened while moving through the queue on its own (the track is
  /// skipped and the next one plays), and of each track whose file could not be read to its end (it stops
  /// where its audio did, and the next one plays). Runs on the controller's side, like observers.
  public var onTrackSkipped: (@Sendable (PlayerError) -> Void)?
  /// Told of what the output says that changes no state (``OutputEvent/notice(_:)``: a stream reconnecting).
  public var onNotice: (@Sendable (String) -> Void)?
  /// Told each time the output ran out of audio while playing (``OutputEvent/underflow``): a script's
  /// `check always no-underrun` counts them.
  public var onUnderflow: (@Sendable () -> Void)?
  /// Where the controller takes up a command once the output has answered: the command's future settles
  /// there and observers run there. By default (nil) the controller's own serial queue. It must run jobs one
  /// at a time, in order, and never in the call (a serial queue, an event loop): `splay serve` passes its
  /// event loop, so that a confirmation becomes a reply on the socket's thread without a further hand-over.
  /// Work that may block (opening a file) stays on the controller's queue.
  public var answers: ExecutionContext?

  /// Creates a configuration.
  public init(
    deadline: Duration = .seconds(3), clock: any Clock<Duration> = ContinuousClock(),
    onTrackSkipped: (@Sendable (PlayerError) -> Void)? = nil, onNotice: (@Sendable (String) -> Void)? = nil,
    answers: ExecutionContext? = nil
  ) {
    self.deadline = deadline
    self.clock = clock
    self.onTrackSkipped = onTrackSkipped
    self.onNotice = onNotice
    self.answers = answers
  }
}
