import Testing

@testable import PlayerCore
@testable import PlayerPulse

/// The position the stream's clock gives: anchor, frames written, flushes, gapless boundaries and when audio
/// will be heard, row by row (``StreamClock``; the filter's own rules are in PositionFilterTests).
@Suite struct StreamClockTests {
  private let second: UInt64 = 1_000_000_000

  /// A playing clock anchored at `seconds` at stream time 0, with `written` frames at 44.1 kHz written.
  private func playing(at seconds: Double, written: Int) -> StreamClock {
    var clock = StreamClock()
    clock.streamCreated(at: seconds, sampleRate: 44_100)
    clock.wrote(written)
    clock.uncorked(at: 0)
    return clock
  }

  /// Rows: the anchor, frames written, the server's clock (µs), and the position: the anchor plus the time
  /// played, never past what was written (a latency the server got wrong must not run ahead of the audio).
  @Test(arguments: [
    (10.0, 44_100, UInt64(500_000), 10.5), (10.0, 44_100, 1_500_000, 11.0), (0, 0, 300_000, 0),
    (2.5, 88_200, 0, 2.5),
  ])
  func thePositionIsTheAnchorPlusWhatPlayed(anchor: Double, written: Int, streamClock: UInt64, position: Double) {
    var clock = playing(at: anchor, written: written)
    let read = clock.position(streamClock: streamClock, at: 2 * second, running: true, duration: 60)
    #expect(abs(read - position) < 1e-9, "\(read)")
  }

  @Test func withoutAReadableClockOrAnAnchorThePositionHolds() {
    var clock = playing(at: 10, written: 44_100)
    _ = clock.position(streamClock: 400_000, at: second, running: true, duration: 60)
    #expect(clock.position(streamClock: nil, at: 2 * second, running: true, duration: 60) == 10.4)
    clock.flushing()
    #expect(clock.anchorStreamTime == nil)
    #expect(clock.position(streamClock: 900_000, at: 3 * second, running: true, duration: 60) == 10.4)
    #expect(clock.writtenEnd == nil, "no end to drain towards until the server anchors the new audio")
  }

  @Test func aFlushStartsOverWhereTheServerSaysTheNewAudioBegins() {
    var clock = playing(at: 10, written: 44_100)
    clock.flushing()
    clock.flushed()
    clock.anchored(at: 30, streamTime: 2_000_000)
    #expect(clock.writtenFrames == 0 && clock.position == 30)
    clock.wrote(22_050)
    #expect(clock.writtenEnd == 2_500_000)
    clock.uncorked(at: 5 * second)
    let read = clock.position(streamClock: 2_250_000, at: 5 * second + 250_000_000, running: true, duration: 60)
    #expect(abs(read - 30.25) < 1e-9, "\(read)")
  }

  @Test func anUnreadableClockAtTheAnchorKeepsTheOldStreamTime() {
    var clock = playing(at: 0, written: 0)
    clock.flushing()
    clock.anchored(at: 5, streamTime: nil)
    #expect(clock.anchorStreamTime == nil && clock.position == 5)
  }

  @Test func aGaplessBoundaryCountsTheNextTrackFromWhereItBeganToPlay() {
    var clock = playing(at: 2, written: 2 * 44_100)
    clock.crossed(at: 1_000_000, writtenBefore: 44_100, seconds: 0.1, running: true, now: second)
    #expect(clock.anchorSeconds == 0 && clock.anchorStreamTime == 1_000_000)
    #expect(clock.writtenFrames == 44_100, "what was written of the next track")
    let read = clock.position(streamClock: 1_300_000, at: second + 200_000_000, running: true, duration: 4)
    #expect(abs(read - 0.3) < 1e-9, "\(read)")
  }

  @Test func theEndIsConfirmedWhereTheTrackEnded() {
    var clock = playing(at: 0, written: 44_100)
    clock.ended(at: 1)
    #expect(clock.position == 1)
  }

  /// Rows: the server's clock (µs, negative while the sink plays what it held before), and when the audio at
  /// 10.5 s (anchor 10 s at stream time 1 s) will be heard: 0.5 s after the anchor's stream time.
  @Test(arguments: [(Int64(1_200_000), UInt64?.some(300_000_000)), (-100_000, 1_600_000_000), (1_500_000, nil)])
  func theAudioAtAPositionIsHeardWhenTheClockReachesIt(signedClock: Int64, inNanoseconds: UInt64?) {
    var clock = StreamClock()
    clock.streamCreated(at: 0, sampleRate: 44_100)
    clock.flushing()
    clock.anchored(at: 10, streamTime: 1_000_000)
    let now = 7 * second
    #expect(clock.movesAt(position: 10.5, signedClock: signedClock, now: now) == inNanoseconds.map { now + $0 })
  }

  @Test func anUncorkMakesTheClockStaleUntilTheUpdateBehindIt() {
    var clock = StreamClock()
    clock.uncorking(read: 0)
    #expect(clock.isStale)
    clock.refreshed()
    #expect(!clock.isStale)
  }

  /// A server that reports the sink's latency tells when the audio moves from the first update; one that reports
  /// none does once its read index moved since the uncork.
  @Test(arguments: [
    (read: Int64(2_000_000), sinkLatency: UInt64(0), knows: false),
    (read: 2_000_000, sinkLatency: 4_342, knows: true),
    (read: 2_000_001, sinkLatency: 0, knows: true),
    (read: 1_999_000, sinkLatency: 0, knows: false),
  ])
  func theStartIsKnownOnceTheServerSaysWhen(read: Int64, sinkLatency: UInt64, knows: Bool) {
    var clock = StreamClock()
    clock.uncorking(read: 2_000_000)
    #expect(clock.knowsStart(read: read, sinkLatency: sinkLatency) == knows)
  }
}
