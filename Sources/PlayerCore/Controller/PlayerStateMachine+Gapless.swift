// Gapless playback: which track to offer the output ahead of time, and where the queue stands when it moved on.
extension PlayerStateMachine {
  /// A track offered to the output ahead of time, so that it can follow the current one without a gap.
  public struct UpcomingTrack: Equatable, Sendable {
    /// The file to open.
    public var path: String
    /// Its place in the queue.
    public var index: Int
    /// The output stream it follows: the offer is stale once that stream is gone.
    public var following: UInt64
  }

  /// The track to offer the output for gapless playback: the one after the current track, with the stream it
  /// would follow; nil when there is none or no stream is open. Never a stream, nor after a live one: opening a
  /// URL connects (the controller would wait for it), and the connection would idle for the whole track before.
  public var upcoming: UpcomingTrack? {
    guard state.status.hasOpenTrack, state.track?.isLive != true, let streamNumber, let index = state.index,
      let next = following(index), !StreamURL.isStream(state.queue[next])
    else { return nil }
    return UpcomingTrack(path: state.queue[next], index: next, following: streamNumber)
  }

  /// Whether ``upcoming`` has not been offered yet: once per track and stream, so that a new stream, or a
  /// change of queue or modes that names another track, is offered again.
  public var offerIsDue: Bool {
    guard let upcoming else { return false }
    return offered != upcoming
  }

  /// The upcoming track when its offer is due, recorded as offered; nil otherwise. A file that cannot be
  /// opened is not offered again: the usual path reports and skips it when the current track ends.
  public mutating func takeOffer() -> UpcomingTrack? {
    guard offerIsDue, let upcoming else { return nil }
    offered = upcoming
    return upcoming
  }

  /// Where the queue stands once the output moved from `index` to the offered `track`: the track that
  /// follows by the modes, or, when they changed after the offer went out (too late for the output to take
  /// another), wherever that track is in the queue, so that the state names what is heard.
  func advancedIndex(from index: Int, to track: TrackInfo?) -> Int? {
    let expected = following(index)
    guard let path = track?.path else { return expected }
    if let expected, state.queue[expected] == path { return expected }
    let count = state.queue.count
    return (1...count).lazy.map { (index + $0) % count }.first { state.queue[$0] == path } ?? expected
  }
}
