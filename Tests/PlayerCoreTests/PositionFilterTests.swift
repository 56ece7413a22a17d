import Testing

@testable import PlayerCore
@testable import PlayerPulse

/// The rules that turn PulseAudio's raw, sometimes spiking, playback clock into a confirmed position.
@Suite struct PositionFilterTests {
  private let second: UInt64 = 1_000_000_000

  @Test func aSpikeAheadIsAbsorbedAndThePositionCatchesUpOnlyAtTheWallClocksPace() {
    var filter = PositionFilter(at: 10)
    #expect(filter.update(raw: 10, at: 100 * second, running: true, duration: 60) == 10)
    // 10 ms later the server's latency estimate dips and the raw clock claims 0.5 s more than has played.
    let spiked = filter.update(raw: 10.51, at: 100 * second + 10_000_000, running: true, duration: 60)
    #expect(spiked < 10.013, "at most the 10 ms that passed, plus tolerance: \(spiked)")
    // A second later the raw clock is right again, and the position follows it.
    let settled = filter.update(raw: 11.01, at: 101 * second + 10_000_000, running: true, duration: 60)
    #expect(abs(settled - 11.01) < 1e-9)
  }

  /// The next gapless track starts while the stream plays: the first reading after a cork that follows counts
  /// the audio played since (a reset there made the pause keep the position of the boundary, 0.16 s short).
  @Test func aGaplessAdvanceKeepsCountingUntilTheCork() {
    var filter = PositionFilter(at: 3.95)
    filter.advance(to: 0.003, at: 10 * second)
    let paused = filter.update(raw: 0.164, at: 10 * second + 161_000_000, running: false, duration: 4)
    #expect(abs(paused - 0.164) < 1e-9, "\(paused)")
    #expect(filter.update(raw: 0.5, at: 11 * second, running: false, duration: 4) == paused, "then it stands still")
  }

  @Test func aSpikeBackIsHeld() {
    var filter = PositionFilter(at: 5)
    _ = filter.update(raw: 5.2, at: 10 * second, running: true, duration: 60)
    #expect(filter.update(raw: 4.9, at: 10 * second + 20_000_000, running: true, duration: 60) == 5.2)
  }

  @Test func aCorkedStreamStandsStill() {
    var filter = PositionFilter(at: 0)
    _ = filter.update(raw: 1, at: 10 * second, running: true, duration: 60)
    // The reading right after the cork: audio flowed until then, so the wall clock still bounds it.
    let paused = filter.update(raw: 1.8, at: 10 * second + 100_000_000, running: false, duration: 60)
    #expect(paused < 1.105, "\(paused)")
    // Corked: a later reading of the same frozen clock moves nothing, however long the pause.
    #expect(filter.update(raw: paused, at: 70 * second, running: false, duration: 60) == paused)
  }

  /// A null sink with no reader renders in blocks of up to 2 s, and its latency swings while nothing plays:
  /// the raw clock of a corked stream then moves (a paused position went 0.50 -> 0.80 s in 0.3 s).
  @Test func aCorkedPositionIgnoresTheRawClockMovingAfterTheCorkOrASeek() {
    var filter = PositionFilter(at: 0)
    _ = filter.update(raw: 0.5, at: 10 * second, running: true, duration: 60)
    let paused = filter.update(raw: 0.501, at: 10 * second + 1_000_000, running: false, duration: 60)
    #expect(filter.update(raw: 0.802, at: 10 * second + 301_000_000, running: false, duration: 60) == paused)
    // Sought while paused: the target holds until the stream plays again.
    filter.reset(to: 20)
    #expect(filter.update(raw: 21.3, at: 11 * second, running: false, duration: 60) == 20)
    #expect(filter.update(raw: 20.2, at: 12 * second, running: false, duration: 60) == 20)
    // A new corked stream stands at its start.
    var fresh = PositionFilter(at: 3)
    #expect(fresh.update(raw: 4.9, at: 1 * second, running: false, duration: 60) == 3)
  }

  /// After a reconnection the server's clock of a corked stream ran with the wall clock (0.02 -> 3.3 s), and
  /// the first position after `play` came out 2.2 s ahead of the audio.
  @Test func aResumedStreamAdvancesFromTheUncorkAtTheWallClocksPace() {
    var filter = PositionFilter(at: 0.02)
    #expect(filter.update(raw: 3.3, at: 10 * second, running: false, duration: 60) == 0.02)
    filter.resumed(at: 13 * second)
    let started = filter.update(raw: 2.2, at: 13 * second + 1_000_000, running: true, duration: 60)
    #expect(started < 0.03, "\(started)")
    let later = filter.update(raw: 3.3, at: 14 * second, running: true, duration: 60)
    #expect(later < 1.05, "no faster than the second that passed: \(later)")
  }

  /// PipeWire's server reads two quanta (46 ms at 44.1 kHz) the moment its graph takes a new stream in, tens of
  /// milliseconds after the uncork, and reports no latency: counted, they put the view 70 ms ahead of the audio.
  @Test func aStreamTheServerBeganToReadOnlyNowAdvancesFromNow() {
    var filter = PositionFilter()
    filter.resumed(at: 10 * second)
    #expect(filter.update(raw: 0, at: 10 * second + 40_000_000, running: true, duration: 60) == 0)
    filter.began(at: 10 * second + 50_000_000)
    let began = filter.update(raw: 0.046, at: 10 * second + 50_020_000, running: true, duration: 60)
    #expect(began == 0, "the start is confirmed where the server began")
    let later = filter.update(raw: 0.046, at: 10 * second + 70_000_000, running: true, duration: 60)
    #expect(abs(later - (0.02 * 1.02 + PositionFilter.slack)) < 1e-9, "at the wall clock's pace: \(later)")
  }

  @Test func aSeekMayMoveAnywhereAndTheTrackBoundsThePosition() {
    var filter = PositionFilter(at: 30)
    _ = filter.update(raw: 30, at: 10 * second, running: true, duration: 60)
    filter.reset(to: 2)
    #expect(filter.update(raw: 2, at: 10 * second + 1_000_000, running: true, duration: 60) == 2)
    filter.reset(to: 59.9)
    #expect(filter.update(raw: 61, at: 20 * second, running: true, duration: 60) == 60)
  }
}
