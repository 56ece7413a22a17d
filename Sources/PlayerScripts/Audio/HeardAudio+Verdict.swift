import PlayerCore

extension HeardAudio.Trail {
  /// The verdict on `expect audio playing FROM ± TOLERANCE` for this trail, the track at `rate` frames a second.
  public func verdict(from: Double, tolerance: Double, rate: Int) -> AudioVerdict {
    func seconds(_ frame: Int) -> String { formatSeconds(Double(frame) / Double(rate)) }
    switch self {
    case .nothingHeard:
      return .wrong("the sink played nothing")
    case .ambiguous:
      return .notJudged(
        "the track is a steady tone where the sink's audio begins: the frame it began at cannot be told")
    case .notFound:
      return .wrong(
        "the sink played audio that is not the track's near where the state says it is (another program playing "
          + "to the sink mixes into it)")
    case .heard(
      let start, let end, let before, let silenceBefore, let reachedRecordingStart, let reachedReferenceStart, _):
      let offset = Double(start) / Double(rate) - from
      let heard = "the sink played the track from \(seconds(start)) s to \(seconds(end)) s without a break"
      if reachedReferenceStart {
        return .wrong(
          "the sink played the track without a break from before \(seconds(start)) s to \(seconds(end)) s: not "
            + "from \(formatSeconds(from)) s")
      }
      if abs(offset) <= tolerance + 0.5 / Double(rate) {
        return .heard(heard + ", sample for sample (\(milliseconds(offset)) from \(formatSeconds(from)) s)")
      }
      if reachedRecordingStart, offset < 0 {
        return .wrong(heard + ", and before that since the recording began: not from \(formatSeconds(from)) s")
      }
      var text = heard + ": not from \(formatSeconds(from)) s (\(milliseconds(offset)))"
      if let before {
        text += "; before that it played \(seconds(before)) s"
        let gap = Double(silenceBefore) / Double(rate)
        if silenceBefore > 0 { text += ", then \(unsigned(gap)) of silence" }
        let jump = Double(start - before) / Double(rate)
        if silenceBefore > 0, abs(jump - gap) < 0.5 / Double(rate) {
          text += " in place of the track (muted, or a dropout to silence)"
        } else {
          text += jump > 0 ? ", skipping \(unsigned(jump))" : ", going back \(unsigned(-jump))"
        }
      }
      return .wrong(text)
    }
  }

  private func unsigned(_ seconds: Double) -> String {
    "\((seconds * 10_000).rounded() / 10) ms"
  }

  private func milliseconds(_ seconds: Double) -> String {
    let value = (seconds * 10_000).rounded() / 10
    return (value > 0 ? "+" : "") + "\(value) ms"
  }
}
