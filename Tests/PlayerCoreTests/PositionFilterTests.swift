import Testing

@testable import PlayerCore

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

  @Test func aSeekMayMoveAnywhereAndTheTrackBoundsThePosition() {
    var filter = PositionFilter(at: 30)
    _ = filter.update(raw: 30, at: 10 * second, running: true, duration: 60)
    filter.reset(to: 2)
    #expect(filter.update(raw: 2, at: 10 * second + 1_000_000, running: true, duration: 60) == 2)
    filter.reset(to: 59.9)
    #expect(filter.update(raw: 61, at: 20 * second, running: true, duration: 60) == 60)
  }
}
