import PlayerCore
import Testing

/// When `Seeked` is due: whenever the position is not where a client would have predicted.
@Suite struct MPRISSeekDetectorTests {
  let playing = MPRISPropertiesTests.playing(at: 10, confirmedAt: 5_000_000_000)

  @Test func aPauseWhereThePositionHadMovedToIsNoSeek() {
    var paused = playing
    paused.status = .paused
    paused.position = ConfirmedPosition(seconds: 12.03, confirmedAt: 7_000_000_000, rate: 0)
    #expect(!MPRISSeekDetector.jumped(from: playing, to: paused))
    var resumed = paused
    resumed.status = .playing
    resumed.position = ConfirmedPosition(seconds: 12.03, confirmedAt: 60_000_000_000, rate: 1)
    #expect(!MPRISSeekDetector.jumped(from: paused, to: resumed), "a paused position stays")
  }

  @Test func aSeekIsOne() {
    var sought = playing
    sought.position = ConfirmedPosition(seconds: 40, confirmedAt: 6_000_000_000, rate: 1)
    #expect(MPRISSeekDetector.jumped(from: playing, to: sought))
    sought.position = ConfirmedPosition(seconds: 10.4, confirmedAt: 6_000_000_000, rate: 1)
    #expect(MPRISSeekDetector.jumped(from: playing, to: sought), "back 0.6 s from 11")
  }

  @Test func anotherTrackIsOneEvenAtTheSamePlace() {
    var next = playing
    next.index = 2
    #expect(MPRISSeekDetector.jumped(from: playing, to: next))
    #expect(MPRISSeekDetector.jumped(from: .initial, to: playing), "the first track")
    #expect(!MPRISSeekDetector.jumped(from: playing, to: .initial), "nothing to tell of no track")
  }

  @Test func aVolumeChangeIsNone() {
    var louder = playing
    louder.volume = 80
    louder.position = ConfirmedPosition(seconds: 10.5, confirmedAt: 5_500_000_000, rate: 1)
    #expect(!MPRISSeekDetector.jumped(from: playing, to: louder))
  }
}

/// Which states a storm lets the MPRIS object skip: only those superseded in volume and position alone.
@Suite struct MPRISCoalescingTests {
  let playing = MPRISPropertiesTests.playing(at: 10, confirmedAt: 5_000_000_000)

  @Test func aVolumeOrPositionSupersededByTheNextStateMayBeSkipped() {
    var next = playing
    next.volume = 41
    next.position = ConfirmedPosition(seconds: 30, confirmedAt: 6_000_000_000, rate: 1)
    next.revision += 1
    #expect(MPRISCoalescing.canSkip(playing, before: next))
  }

  @Test func aChangeOfStatusTrackOrModeIsNeverSkipped() {
    var paused = playing
    paused.status = .paused
    #expect(!MPRISCoalescing.canSkip(playing, before: paused))
    var other = playing
    other.index = 2
    #expect(!MPRISCoalescing.canSkip(playing, before: other))
    var looping = playing
    looping.repeatMode = .one
    #expect(!MPRISCoalescing.canSkip(playing, before: looping))
    var shuffled = playing
    shuffled.shuffle = true
    #expect(!MPRISCoalescing.canSkip(playing, before: shuffled))
  }
}
