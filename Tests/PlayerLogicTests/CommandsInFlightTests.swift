import PlayerCore
import Testing

/// What the live view shows while commands are in flight: every one until it settles, and a clock that holds
/// until a state confirmed after the last of them (two quick keys once lost the second's label and clock).
@Suite struct CommandsInFlightTests {
  private static let second: UInt64 = 1_000_000_000

  /// Playing at `seconds` as confirmed at 10 s of monotonic time, revision `revision`.
  private static func playing(at seconds: Double, revision: UInt64) -> PlayerState {
    var state = PlayerState(
      status: .playing, position: ConfirmedPosition(seconds: seconds, confirmedAt: 10 * second, rate: 1))
    state.track = TrackInfo(path: "a.flac", format: "FLAC", sampleRate: 44_100, channels: 2, frames: 44_100 * 60)
    state.revision = revision
    return state
  }

  @Test func twoQuickKeysEachShowUntilTheirOwnCompletion() {
    var flight = CommandsInFlight()
    let before = Self.playing(at: 5, revision: 1)
    let first = flight.sent("pausing…", state: before, at: 11 * Self.second)
    let second = flight.sent("seeking +5 s…", state: before, at: 11 * Self.second)
    #expect(flight.label == "pausing…, seeking +5 s…")
    #expect(flight.held?.position == 6, "held at the estimate when the first key was sent")
    // The first command's state arrives, then its completion: the second is still in flight.
    var paused = Self.playing(at: 6.02, revision: 2)
    paused.status = .paused
    paused.position.rate = 0
    flight.received(paused, at: 12 * Self.second)
    flight.settled(first, state: paused, at: 12 * Self.second)
    #expect(flight.label == "seeking +5 s…", "the second key's label stays")
    #expect(flight.held?.position == 6.02, "the clock holds, from the newest confirmed state")
    #expect(flight.held?.revision == 2)
    var sought = paused
    sought.position.seconds = 11.02
    sought.revision = 3
    flight.received(sought, at: 13 * Self.second)
    #expect(flight.held?.revision == 3, "still holding: the seek has not settled")
    flight.settled(second, state: sought, at: 13 * Self.second)
    #expect(flight.label == nil)
    #expect(flight.held == nil, "nothing in flight: the clock runs from the confirmed state")
  }

  @Test func aRefusedCommandLetsTheClockRunAgain() {
    var flight = CommandsInFlight()
    let state = Self.playing(at: 5, revision: 1)
    let id = flight.sent("next track…", state: state, at: 11 * Self.second)
    flight.settled(id, state: state, at: 11 * Self.second)
    #expect(flight.held == nil && flight.label == nil)
  }

  @Test func aTimedOutCommandHoldsTheClockUntilANewerState() {
    var flight = CommandsInFlight()
    let state = Self.playing(at: 5, revision: 1)
    let id = flight.sent("pausing…", state: state, at: 11 * Self.second)
    flight.settled(id, state: state, at: 14 * Self.second, keepHolding: true)
    #expect(flight.label == nil)
    #expect(flight.held?.position == 6, "unconfirmed either way: the clock stays where it was")
    flight.received(Self.playing(at: 9, revision: 2), at: 15 * Self.second)
    #expect(flight.held == nil)
  }

  @Test func nothingIsHeldWithoutATrack() {
    var flight = CommandsInFlight()
    _ = flight.sent("playing…", state: .initial, at: Self.second)
    #expect(flight.held == nil)
    #expect(flight.label == "playing…")
  }
}
