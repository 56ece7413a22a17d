import AudioTestSupport
import Testing

/// Judging tracks that should reach the sink back to back, without a gap or a repeat, for the gapless tests.
enum BackToBack {
  /// Runs `attempt` (given whether it is the last), and again when it returns true: its recording met a
  /// silent gap inside audio that has none, which a server starved of CPU causes (PipeWire's graph on a loaded
  /// machine drops a cycle, or skips part of one: ``PulseEnvironment/graphMayGlitch``) and no player can
  /// prevent. Two attempts, three on PipeWire, where one test glitched twice in a row (pipewire-44100, 2026-12-01)
  /// and then passed alone three times out of three; each is judged in full, and the last one asserts. `name`
  /// labels the line that says so.
  static func retryingAfterADropout(_ name: String, _ attempt: (_ lastAttempt: Bool) async throws -> Bool)
    async throws
  {
    let attempts = max(2, PulseEnvironment.attemptsAllowingGlitches)
    var number = 1
    while try await attempt(number == attempts) {
      print("\(name): attempt \(number) met a dropout or a glitch at the sink; trying again")
      number += 1
    }
  }

  /// Checks that `recording` holds `reference`, tracks back to back whose joins are at the `boundaries` (frames
  /// of `reference`), from its first audible frame: sample for sample where the monitor records exactly; else
  /// the 4,096 frames around each join, each as one piece, located by correlation (a gap or repeat of 1 ms shifts
  /// half of them by a period's worth of phase). Returns true, recording no issue, when the attempt should be
  /// repeated: it met a dropout and was not the last; otherwise records what does not hold, saying `what`.
  static func judge(
    _ recording: MonitorRecorder.Recording, holds reference: [Float], boundaries: [Int], lastAttempt: Bool,
    _ what: String
  ) throws -> Bool {
    let left = recording.left
    let start = try #require(recording.firstAudibleFrame(), "no audio reached the sink")
    let dropout = recording.firstSilentFrame(after: start, lasting: 44).map { $0 < start + reference.count - 44 }
    let retry = (dropout == true || PulseEnvironment.graphMayGlitch != nil) && !lastAttempt
    guard PulseEnvironment.inexactRecording != nil else {
      let match = SignalAnalysis.bestOffset(of: reference, in: left, range: max(0, start - 200)..<(start + 200))
      let difference = SignalAnalysis.maximumDifference(left, offset: match.offset, reference: reference)
      if retry, match.error >= 1e-4 || difference >= 1e-4 { return true }
      #expect(match.error < 1e-4, "the sink got other samples than the first track's")
      #expect(difference < 1e-4, "\(what): nothing lost or repeated (max difference \(difference))")
      return false
    }
    for boundary in boundaries {
      let around = Array(reference[(boundary - 2048)..<(boundary + 2048)])
      let match = SignalAnalysis.correlate(around, in: left, range: max(0, start - 2_205)..<(start + boundary + 4_410))
      if retry, match.correlation <= 0.95 { return true }
      #expect(match.correlation > 0.95, "\(what): no gap or repeat at frame \(boundary)")
    }
    return false
  }
}
