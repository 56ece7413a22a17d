import Dispatch
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
  public var streamNumber: UInt64
  /// The device the stream plays to, when the output has devices and the confirmation is about a new stream.
  public var device: String?
  /// The stream's volume at the server in percent, when the confirmation is about a new stream: what the
  /// `open` asked for, or what the server chose (a session manager restores a saved volume) when it asked none.
  public var volume: Int?
  /// The gapless advance that began stream `streamNumber`, when one did: a confirmation can reach the controller before the
  /// ``OutputEvent/trackAdvanced(from:_:track:)`` event, and its position counts from that track.
  public var advance: GaplessAdvance?
  /// When the audio at `position` will be heard, if the server has taken it but not played it yet
  /// (``ConfirmedPosition/movesAt``); nil when it is heard now or nothing moves.
  public var movesAt: UInt64?

  /// Creates a confirmation.
  public init(
    position: Double, time: UInt64, running: Bool, streamNumber: UInt64 = 0, device: String? = nil, volume: Int? = nil,
    advance: GaplessAdvance? = nil, movesAt: UInt64? = nil
  ) {
    self.position = position
    self.time = time
    self.running = running
    self.streamNumber = streamNumber
    self.device = device
    self.volume = volume
    self.advance = advance
    self.movesAt = movesAt
  }
}

/// A move to the next track within one stream, without a gap: the stream it followed and the track it plays.
public struct GaplessAdvance: Equatable, Hashable, Sendable {
  /// The stream number before the advance.
  public var from: UInt64
  /// The track the stream plays since.
  public var track: TrackInfo

  /// Creates the advance from stream `from` to `track`.
  public init(from: UInt64, track: TrackInfo) {
    self.from = from
    self.track = track
  }
}

/// Something the output reports on its own, not as the answer to a command.
public enum OutputEvent: Equatable, Sendable {
  /// The current track's last frame has been played (the drain was acknowledged).
  case trackFinished(OutputConfirmation)
  /// The track prepared with ``AudioOutput/prepareNext(_:following:)`` has started to play in the same stream,
  /// straight after the last frame of stream `from`: the server's clock has passed the boundary between them.
  /// The confirmation carries the new stream number and the position in the new track.
  case trackAdvanced(from: UInt64, OutputConfirmation, track: TrackInfo)
  /// The server confirmed a stream operation after the command that asked for it had stopped waiting (its
  /// deadline passed, for example while the server was stopped): the stream is now as the confirmation says.
  case confirmedLate(OutputConfirmation)
  /// The server moved the stream to `device` (another program moved it, or its sink went away and the server
  /// rescued the stream onto another); the device of a new stream comes with its `open` confirmation.
  case deviceChanged(String)
  /// The current track ended early: its file could not be read to the end (it was truncated or damaged
  /// while playing). The confirmation holds the position where the audio really ended.
  case trackFailed(PlayerError, OutputConfirmation)
  /// The server changed the stream's volume itself (another program, for example `pactl`).
  case volumeChanged(Int)
  /// The server muted or unmuted the stream itself (another program, for example `pactl set-sink-input-mute`).
  case muteChanged(Bool)
  /// The connection to the audio server is gone; every pending operation has failed with this error.
  case lost(PlayerError)
  /// The server ran out of audio to play (decoding fell behind); informational.
  case underflow
  /// The title of the confirmation's stream's track changed (a radio's ICY `StreamTitle`): the server has just
  /// played the first frame of the audio it belongs to, at the confirmation's position.
  case titleChanged(String, OutputConfirmation)
  /// Something a person should know that changes no state: a stream dropped and is being reconnected (the
  /// message names the stream).
  case notice(String)
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

  /// Connects if needed and opens a corked stream for `decoder`'s format, positioned at `seconds`, at `volume`
  /// percent, or with nil at the volume the server gives new streams (a session manager may restore a saved
  /// one). The confirmation's `volume` is the stream's real volume; its `running` says whether audio flows: an
  /// output may hand over a stream it was asked to start playing before the first `open`
  /// (``PulseOutput/prepare(_:playingWhen:)``), and the state follows the output.
  func open(_ decoder: any AudioDecoder, at seconds: Double, volume: Int?) -> Future<OutputConfirmation, PlayerError>

  /// Uncorks: resolves when the server confirmed that audio flows.
  func start() -> Future<OutputConfirmation, PlayerError>

  /// Corks: resolves when the server confirmed the stream is corked, with the position frozen there.
  func pause() -> Future<OutputConfirmation, PlayerError>

  /// Drops what is buffered and continues from `seconds`, keeping the stream running or corked as it was.
  /// The seek is begun in the call: cancelling the returned future stops the wait, not the seek, and the
  /// output reports the server's confirmation as ``OutputEvent/confirmedLate(_:)`` when it comes.
  func seek(to seconds: Double) -> Future<OutputConfirmation, PlayerError>

  /// Corks and flushes, leaving the stream positioned at the start of the track.
  func stop() -> Future<OutputConfirmation, PlayerError>

  /// Sets the stream volume in percent (0–100); resolves with the volume the server confirmed.
  func setVolume(_ percent: Int) -> Future<Int, PlayerError>

  /// Sets the stream's mute flag at the server, leaving its volume; resolves with the flag the server
  /// confirmed. With no stream, the flag is taken for the next one (as a volume is).
  func setMute(_ muted: Bool) -> Future<Bool, PlayerError>

  /// Reads the stream's real state from the server: used after a deadline was missed.
  func status() -> Future<OutputConfirmation, PlayerError>

  /// Closes the stream (not the connection).
  func close() -> Future<Void, PlayerError>

  /// Sets the receiver of ``OutputEvent``s; called once, before the first `open`.
  func setEventHandler(_ handler: @escaping @Sendable (OutputEvent) -> Void)

  /// Asks the output to settle its futures and report its events on `executor` (the consumer's own serial
  /// queue or event loop), so that an answer from the server reaches the consumer with one thread wake-up
  /// instead of two; called once, before the first `open`. The executor must hand jobs to another thread, not
  /// run them in the call. Outputs that answer in the call ignore it.
  func deliver(on executor: ExecutionContext)

  /// Whether ``prepareNext(_:following:)`` can make tracks follow each other without a gap; when false the
  /// controller does not open the next track before the current one has finished.
  var playsGapless: Bool { get }

  /// The stream's volume and mute flag as the output knows them from the server now (its latest reading or
  /// acknowledgement), or nil when it keeps none. A change event reaches the controller behind the commands
  /// queued before it, and one read before a `volume` command's acknowledgement must not undo it: the
  /// controller publishes what the output knows when it takes the event up.
  var serverVolume: (level: Int, muted: Bool)? { get }

  /// Offers the track that follows stream `stream`, so that its first frame follows the current track's last
  /// frame with nothing in between. Resolves with `true` when the output took it: it then reports
  /// ``OutputEvent/trackAdvanced(from:_:track:)`` once that boundary has been played, and no `trackFinished`
  /// for the current track. `false` (another sample format, a stream that has moved on, the end already
  /// drained) leaves the usual path: `trackFinished`, then an `open`. Any `open`, `close` or lost connection
  /// forgets the prepared track; a seek or stop within the current track keeps it.
  func prepareNext(_ decoder: any AudioDecoder, following stream: UInt64) -> Future<Bool, PlayerError>
}

extension AudioOutput {
  /// Outputs that answer in the call have nothing to deliver later.
  public func deliver(on executor: ExecutionContext) {}

  /// Outputs that do not implement gapless playback play one stream per track.
  public var playsGapless: Bool { false }

  /// Outputs whose events are never outrun by a command's answer keep no separate reading.
  public var serverVolume: (level: Int, muted: Bool)? { nil }

  /// Declines: the next track is opened when the current one has finished.
  public func prepareNext(_ decoder: any AudioDecoder, following stream: UInt64) -> Future<Bool, PlayerError> {
    .resolved(false)
  }
}
