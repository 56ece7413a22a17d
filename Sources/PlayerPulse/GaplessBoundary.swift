import PlayerCore

/// Where a gapless next track begins in a stream that plays two tracks in a row, and what is left to do there.
///
/// The next track is offered (``offer(_:)``), decoded into the ring right behind the current one once its end
/// is reached (``startFeeding()``), and its first frame's place is recorded when that frame is written to the
/// server (``written(before:)``), in frames since the output's anchor. The track changes only once the server's
/// clock has passed that place (``advance(at:anchorStreamTime:sampleRate:)``). The place becomes a stream time
/// only with the anchor: after a flush, frames are written before the server has told where they will play.
/// Pure: the output holds it with the mainloop lock.
struct GaplessBoundary {
  /// Where the next track starts: frames written since the anchor, and the matching stream time in µs.
  struct Place: Equatable {
    /// Frames written to the server, since the anchor, before the next track's first frame.
    var writtenFrames: Int64
    /// The stream time (µs) at which that frame plays.
    var streamTime: UInt64
  }

  /// The track offered to follow the current one, until the stream moves on to it.
  private(set) var upcoming: (any AudioDecoder)?
  /// The decoding has passed the current track's end and decodes `upcoming` into the ring now.
  private(set) var feedingUpcoming = false
  /// `upcoming` was partly decoded before a seek went back into the current track: rewind it before reuse.
  private(set) var needsRewind = false
  /// Frames written to the server since the anchor before the next track's first frame: known once that frame
  /// has been written.
  private(set) var boundaryFrames: Int64?
  /// The advance that began the stream now playing, when one did (kept until the next one, or a new stream).
  private(set) var lastAdvance: GaplessAdvance?

  /// Whether a next track waits to be decoded once the current one ends.
  var canContinue: Bool { upcoming != nil && !feedingUpcoming }

  /// Takes `decoder` as the next track.
  mutating func offer(_ decoder: any AudioDecoder) {
    upcoming = decoder
    needsRewind = false
  }

  /// Withdraws an offer that came too late (the current track's last frames were all written already).
  mutating func withdraw() {
    upcoming = nil
  }

  /// The current track ended in the decoder: returns the next track to decode from there and whether it must
  /// be rewound first, or nil when none is waiting.
  mutating func startFeeding() -> (decoder: any AudioDecoder, rewind: Bool)? {
    guard let upcoming, !feedingUpcoming else { return nil }
    feedingUpcoming = true
    defer { needsRewind = false }
    return (upcoming, needsRewind)
  }

  /// The next track's first frame was written to the server after `frames` frames since the anchor.
  mutating func written(before frames: Int64) {
    boundaryFrames = frames
  }

  /// Where the boundary plays, when the anchor's frames began to play at `anchorStreamTime` µs; nil while the
  /// boundary or the anchor (pending after a flush) is not known.
  func place(anchorStreamTime: UInt64?, sampleRate: Int) -> Place? {
    guard let boundaryFrames, let anchorStreamTime else { return nil }
    let offset = UInt64(Double(max(boundaryFrames, 0)) * 1e6 / Double(sampleRate))
    return Place(writtenFrames: boundaryFrames, streamTime: anchorStreamTime + offset)
  }

  /// A seek or stop went back into the current track: what was decoded of the next one is dropped, and it
  /// starts over from its first frame when the current track ends again.
  mutating func repositioned() {
    if feedingUpcoming {
      feedingUpcoming = false
      needsRewind = true
    }
    boundaryFrames = nil
  }

  /// The server's clock reads `streamTime` µs: once that is past the boundary, the stream has moved on to the
  /// next track, which this returns with the boundary; nil before. At the boundary itself nothing of the next
  /// track has played: a stream corked there (a paused seek to the end) is still at the current track's end.
  mutating func advance(
    at streamTime: UInt64, anchorStreamTime: UInt64?, sampleRate: Int
  ) -> (decoder: any AudioDecoder, place: Place)? {
    guard let place = place(anchorStreamTime: anchorStreamTime, sampleRate: sampleRate), let upcoming,
      streamTime > place.streamTime
    else { return nil }
    self = GaplessBoundary()
    return (upcoming, place)
  }

  /// The stream now plays the next track by `advance`: every confirmation from here on carries it.
  mutating func began(by advance: GaplessAdvance) {
    lastAdvance = advance
  }

  /// How long (s) until the server's clock, reading `streamTime` µs, reaches the boundary; nil when not known.
  func wait(from streamTime: UInt64, anchorStreamTime: UInt64?, sampleRate: Int) -> Double? {
    guard let place = place(anchorStreamTime: anchorStreamTime, sampleRate: sampleRate) else { return nil }
    return Double(place.streamTime > streamTime ? place.streamTime - streamTime : 0) / 1e6
  }
}
