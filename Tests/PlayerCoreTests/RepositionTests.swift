import Testing

@testable import PlayerCore
@testable import PlayerPulse

/// How a seek or stop ends, for every landing of the decoder, whether it was to play afterwards and whether it
/// played before, with the anchor known before or after the landing.
@Suite struct RepositionTests {
  private static let refused = PlayerError.unsupportedFormat(path: "a.flac", detail: "no seek table")

  struct Row: CustomTestStringConvertible, Sendable {
    var landing: SeekLanding
    var resume: Bool
    var wasRunning: Bool
    var decision: Reposition.Decision
    var testDescription: String {
      "landed at \(landing.frame.map(String.init) ?? "nothing")\(landing.error == nil ? "" : " refused"),"
        + " resume \(resume), was running \(wasRunning)"
    }
  }

  static let rows: [Row] = [
    // At the target: play or stay corked as asked.
    Row(
      landing: SeekLanding(frame: 48_000), resume: true, wasRunning: false, decision: .init(then: .start(failing: nil))),
    Row(landing: SeekLanding(frame: 48_000), resume: false, wasRunning: true, decision: .init(then: .confirmCorked)),
    // Clamped elsewhere without an error (the end of the track): the clock moves there.
    Row(
      landing: SeekLanding(frame: 24_000), resume: false, wasRunning: false,
      decision: .init(movedTo: 0.5, then: .confirmCorked)),
    // Refused and back where the audio was: it plays again if it played, and the command fails.
    Row(
      landing: SeekLanding(frame: 12_000, error: refused), resume: true, wasRunning: true,
      decision: .init(movedTo: 0.25, then: .start(failing: refused))),
    Row(
      landing: SeekLanding(frame: 12_000, error: refused), resume: true, wasRunning: false,
      decision: .init(movedTo: 0.25, then: .fail(refused))),
    // Refused and nowhere to go: the ring ends empty; nothing moves the clock.
    Row(
      landing: SeekLanding(frame: nil, error: refused), resume: false, wasRunning: false,
      decision: .init(then: .fail(refused))),
  ]

  @Test(arguments: rows, [true, false])
  func theLaterHalfDecides(row: Row, anchorFirst: Bool) {
    let move = Reposition(target: 48_000, resume: row.resume, wasRunning: row.wasRunning, sampleRate: 48_000)
    let first = anchorFirst ? move.anchorKnown() : move.landed(row.landing)
    #expect(first == nil, "one half is not a decision")
    let second = anchorFirst ? move.landed(row.landing) : move.anchorKnown()
    #expect(second == row.decision)
  }
}
