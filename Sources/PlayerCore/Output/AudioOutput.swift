import Futures

/// What the output confirmed about the stream when it acknowledged an operation.
public struct OutputConfirmation: Equatable, Hashable, Sendable {
  /// Seconds into the current track that have been played (heard at the sink), as confirmed.
  public var position: Double
  /// Monotonic time of the confirmation in nanoseconds, on the output's clock.
  public var time: UInt64
  /// True when audio is flowing (uncorked), false when corked.
  public var running: Bool
  /// Which stream this is about: every `open` creates a stream with a new number. An event about a stream
  /// that has since been replaced (a track that finished just as `next` opened another) is stale.
  public var stream: UInt64

  /// Creates a confirmation.
  public init(position: Double, time: UInt64, running: Bool, stream: UInt64 = 0) {
    self.position = position
    self.time = time
    self.running = running
    self.stream = stream
  }
}

/// Something the output reports on its own, not as the answer to a command.
public enum OutputEvent: Equatable, Sendable {
  /// The current track's last frame has been played (the drain was acknowledged).
  case trackFinished(OutputConfirmation)
  /// The current track ended early: its file could not be read to the end (it was truncated or damaged
  /// while playing). The confirmation holds the position where the audio really ended.
  case trackFailed(PlayerError, OutputConfirmation)
  /// The server changed the stream's volume itself (another program, for example `pactl`).
  case volumeChanged(Int)
  /// The connection to the audio server is gone; every pending operation has failed with this error.
  case lost(PlayerError)
  /// The server ran out of audio to play (decoding fell behind); informational.
  case underflow
}

/// An audio output: every operation returns a future that resolves when the output confirmed it.
///
/// One track stream is open at a time. The output pulls decoded frames from the ``AudioDecoder`` it was given
/// on a thread of its own. Operations are issued one at a time by ``PlayerController``; an implementation need
/// not support overlapping operations, but must settle every future it returns (the controller also applies a
/// deadline).
public protocol AudioOutput: AnyObject, Sendable {
  /// A short description of where audio goes (`pulse:unix:/run/…/native`, `simulated`), for messages.
  var destination: String { get }

  /// Connects if needed and opens a corked stream for `decoder`'s format, positioned at `seconds`.
  func open(_ decoder: any AudioDecoder, at seconds: Double, volume: Int) -> Future<OutputConfirmation, PlayerError>

  /// Uncorks: resolves when the server confirmed that audio flows.
  func start() -> Future<OutputConfirmation, PlayerError>

  /// Corks: resolves when the server confirmed the stream is corked, with the position frozen there.
  func pause() -> Future<OutputConfirmation, PlayerError>

  /// Drops what is buffered and continues from `seconds`, keeping the stream running or corked as it was.
  /// Cancelling the returned future before the output has begun the seek abandons it.
  func seek(to seconds: Double) -> Future<OutputConfirmation, PlayerError>

  /// Corks and flushes, leaving the stream positioned at the start of the track.
  func stop() -> Future<OutputConfirmation, PlayerError>

  /// Sets the stream volume in percent (0–100); resolves with the volume the server confirmed.
  func setVolume(_ percent: Int) -> Future<Int, PlayerError>

  /// Reads the stream's real state from the server: used after a deadline was missed.
  func status() -> Future<OutputConfirmation, PlayerError>

  /// Closes the stream (not the connection).
  func close() -> Future<Void, PlayerError>

  /// Sets the receiver of ``OutputEvent``s; called once, before the first `open`.
  func setEventHandler(_ handler: @escaping @Sendable (OutputEvent) -> Void)
}
