import PlayerCore

/// Where the stream's audio is in the track: the anchor (a position, and the stream time at which the audio
/// written since began to play), the frames written since, and the position confirmed from the server's clock
/// through the ``PositionFilter``. Decides only: ``StreamSession`` reads the server's clock and passes it in.
struct StreamClock: Sendable {
  /// The stream's sample rate.
  private(set) var sampleRate = 44_100
  /// The position the anchor stands for, in seconds into the track.
  private(set) var anchorSeconds = 0.0
  /// The stream time (µs) at which the audio written since the anchor began to play; nil from a flush until
  /// the server has told where the new audio will start.
  private(set) var anchorStreamTime: UInt64? = 0
  /// Frames written to the server since the anchor (the stream's start, a flush or a gapless boundary).
  private(set) var writtenFrames: Int64 = 0
  /// From an uncork until the timing update requested behind it: the last update was taken while corked, so
  /// the server's clock is not read (the position holds, no gapless boundary is taken as played).
  private(set) var isStale = false
  /// The server's read index (µs) when the last uncork was asked for.
  private var readAtUncork: Int64 = 0
  private var filter = PositionFilter()

  /// The last confirmed position.
  var position: Double { filter.position }

  /// A new stream of `sampleRate` starts at `seconds`.
  mutating func streamCreated(at seconds: Double, sampleRate: Int) {
    self.sampleRate = sampleRate
    anchorStreamTime = 0
    writtenFrames = 0
    isStale = false
    moved(to: seconds)
  }

  /// The audio starts at `seconds` after all (a decoder that landed elsewhere); the stream time stays.
  mutating func moved(to seconds: Double) {
    anchorSeconds = seconds
    filter.reset(to: seconds)
  }

  /// A flush was asked for: until the server says where the new audio starts, nothing counts from the old
  /// anchor.
  mutating func flushing() { anchorStreamTime = nil }

  /// The server flushed what it held: nothing written since the new anchor yet.
  mutating func flushed() { writtenFrames = 0 }

  /// After a flush, the audio written from now on plays from `seconds` at `streamTime` (the read index; nil
  /// when the server's clock could not be read).
  mutating func anchored(at seconds: Double, streamTime: UInt64?) {
    if let streamTime { anchorStreamTime = streamTime }
    moved(to: seconds)
  }

  /// `frames` more were written to the server.
  mutating func wrote(_ frames: Int) { writtenFrames += Int64(frames) }

  /// The stream time at which the last frame written so far plays out, nil without an anchor.
  var writtenEnd: UInt64? {
    anchorStreamTime.map { $0 + UInt64(Double(max(writtenFrames, 0)) * 1e6 / Double(sampleRate)) }
  }

  /// An uncork was asked for with the server's read index at `read` (µs of the stream): the clock is stale until
  /// the timing update behind it.
  mutating func uncorking(read: Int64) {
    isStale = true
    readAtUncork = read
  }

  /// Whether a timing update with the read index at `read` and the sink's latency `sinkLatency` (µs) tells when
  /// the audio moves: a server that reports the latency does; one that reports none (PipeWire's, whose graph
  /// may take tens of milliseconds to start a new stream) does once its read index moved since the uncork.
  func knowsStart(read: Int64, sinkLatency: UInt64) -> Bool { sinkLatency > 0 || read > readAtUncork }

  /// The server acknowledged the uncork at `now`: the position may advance from here at the wall clock's pace.
  mutating func uncorked(at now: UInt64) { filter.resumed(at: now) }

  /// A server that reports no latency was seen to begin reading at `now` (``knowsStart(read:sinkLatency:)``).
  mutating func serverBegan(at now: UInt64) { filter.began(at: now) }

  /// A timing update taken after the uncork arrived (or the stream went): the clock is read again.
  mutating func refreshed() { isStale = false }

  /// The stream crossed a gapless boundary that began to play at `streamTime`, with `writtenBefore` frames of
  /// the old track written since the anchor: the next track's position is `seconds`, read at `now`.
  mutating func crossed(at streamTime: UInt64, writtenBefore: Int64, seconds: Double, running: Bool, now: UInt64) {
    anchorSeconds = 0
    anchorStreamTime = streamTime
    writtenFrames -= writtenBefore
    if running {
      filter.advance(to: seconds, at: now)
    } else {
      filter.reset(to: seconds)
    }
  }

  /// The track ended at `seconds` (its drain was acknowledged).
  mutating func ended(at seconds: Double) { filter.reset(to: seconds) }

  /// The position from the server's clock `streamClock` (µs of the stream, nil while unknown) at `now`: the
  /// anchor plus the stream time since it, never more than was written (a latency the server got wrong, or a
  /// sink that renders in long blocks, must not carry it past the audio), through the ``PositionFilter``.
  mutating func position(streamClock: UInt64?, at now: UInt64, running: Bool, duration: Double) -> Double {
    guard let anchorStreamTime, let usec = streamClock else { return filter.position }
    let elapsed = usec >= anchorStreamTime ? Double(usec - anchorStreamTime) / 1e6 : 0
    let written = Double(max(writtenFrames, 0)) / Double(sampleRate)
    return filter.update(raw: anchorSeconds + min(elapsed, written), at: now, running: running, duration: duration)
  }

  /// When the audio at `position` will be heard (monotonic ns), while the server's clock `signedClock` (µs,
  /// negative while the sink plays what it held before the stream) has not reached it; nil once heard.
  func movesAt(position: Double, signedClock: Int64, now: UInt64) -> UInt64? {
    guard let anchorStreamTime else { return nil }
    let heard = Int64(anchorStreamTime) + Int64(((position - anchorSeconds) * 1e6).rounded())
    return heard > signedClock ? now + UInt64(heard - signedClock) * 1_000 : nil
  }
}
