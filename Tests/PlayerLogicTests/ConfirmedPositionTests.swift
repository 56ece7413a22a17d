import PlayerCore
import Testing

struct ConfirmedPositionTests {
  @Test func aPlayingPositionMovesFromItsConfirmation() {
    let position = ConfirmedPosition(seconds: 2, confirmedAt: 1_000_000_000, rate: 1)
    #expect(position.estimated(at: 500_000_000) == 2)
    #expect(position.estimated(at: 1_500_000_000) == 2.5)
    #expect(position.estimated(at: 9_000_000_000, limit: 4) == 4)
  }

  /// Audio the server has taken but plays later: the position holds until then, and moves from there.
  @Test func aPositionThatMovesLaterHoldsUntilThen() {
    let position = ConfirmedPosition(seconds: 2, confirmedAt: 1_000_000_000, rate: 1, movesAt: 2_500_000_000)
    #expect(position.estimated(at: 2_000_000_000) == 2)
    #expect(position.estimated(at: 2_500_000_000) == 2)
    #expect(position.estimated(at: 3_000_000_000) == 2.5)
    #expect(position.secondsUntilItMoves(at: 2_000_000_000) == 0.5)
    #expect(position.secondsUntilItMoves(at: 3_000_000_000) == 0)
  }

  @Test func aPausedPositionNeverMoves() {
    let position = ConfirmedPosition(seconds: 2, confirmedAt: 1_000_000_000, rate: 0, movesAt: 1_200_000_000)
    #expect(position.estimated(at: 5_000_000_000) == 2)
  }
}
