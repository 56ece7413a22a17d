import AudioTestSupport
import Foundation
import Testing

/// The sandbox flavour is what it says it is, so that a check it skips is skipped for its reason: on plain
/// PulseAudio the truth sink judges what the monitor of a rewinding sink cannot, and a sandbox that lost it
/// (its build failed) would turn those checks into skips without a word.
@Suite(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseSandboxTests {
  static let plainWithTruthSink =
    PulseEnvironment.flavour == "pulse-plain" && ProcessInfo.processInfo.environment["SPLAY_TRUTH_SINK"] != "0"

  @Test(.enabled(if: plainWithTruthSink, "only pulse-plain loads the truth sink (SPLAY_TRUTH_SINK=0 opts out)"))
  func plainPulseAudioIsJudgedByTheTruthSink() {
    #expect(
      PulseEnvironment.truthFile != nil,
      "pulse-plain runs without the truth sink (see scripts/pulse-sandbox); SPLAY_TRUTH_SINK=0 opts out")
  }
}
