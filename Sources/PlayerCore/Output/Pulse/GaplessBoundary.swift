/// Where a gapless next track begins in a stream that plays two tracks in a row, and what is left to do there.
///
/// The next track is offered (``offer(_:)``), decoded into the ring right behind the current one once its end
/// is reached (``startFeeding()``), and its first frame's place is recorded when that frame is written to the
/// server (``written(before:anchorStreamTime:sampleRate:)``). The track changes only once the server's clock
/// has passed that place (``advance(at:)``). Pure: the output holds it with the mainloop lock.
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
  /// Known once the next track's first frame has been written to the server.
  private(set) var place: Place?

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

  /// The next track's first frame was written to the server after `frames` frames since the anchor, which
  /// played at `anchorStreamTime` µs.
  mutating func written(before frames: Int64, anchorStreamTime: UInt64, sampleRate: Int) {
    place = Place(
      writtenFrames: frames, streamTime: anchorStreamTime + UInt64(Double(frames) * 1e6 / Double(sampleRate)))
  }

  /// A seek or stop went back into the current track: what was decoded of the next one is dropped, and it
  /// starts over from its first frame when the current track ends again.
  mutating func repositioned() {
    if feedingUpcoming {
      feedingUpcoming = false
      needsRewind = true
    }
    place = nil
  }

  /// The server's clock reads `streamTime` µs: once that is past the boundary, the stream has moved on to the
  /// next track, which this returns with the boundary; nil before.
  mutating func advance(at streamTime: UInt64) -> (decoder: any AudioDecoder, place: Place)? {
    guard let place, let upcoming, streamTime >= place.streamTime else { return nil }
    self = GaplessBoundary()
    return (upcoming, place)
  }

  /// How long (s) until the server's clock, reading `streamTime` µs, reaches the boundary; nil when not known.
  func wait(from streamTime: UInt64) -> Double? {
    guard let place else { return nil }
    return Double(place.streamTime > streamTime ? place.streamTime - streamTime : 0) / 1e6
  }
}
