import Foundation

/// What the fixtures' content says about position: the tone ladder (400 + 100·k Hz during quarter second k).
public enum SignalAnalysis {
  /// The power of `frequency` in `samples` (Goertzel), normalised by length.
  public static func power(of frequency: Double, in samples: ArraySlice<Float>, rate: Int) -> Double {
    let coefficient = 2 * cos(2 * Double.pi * frequency / Double(rate))
    var s1 = 0.0
    var s2 = 0.0
    for sample in samples {
      let s0 = Double(sample) + coefficient * s1 - s2
      s2 = s1
      s1 = s0
    }
    let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
    return power / Double(max(samples.count, 1) * max(samples.count, 1))
  }

  /// The ladder step (0, 1, 2 …) sounding in `samples`: the strongest of the candidate frequencies.
  public static func ladderStep(in samples: ArraySlice<Float>, rate: Int, steps: Int = 16) -> Int {
    (0..<steps).max {
      power(of: 400 + 100 * Double($0), in: samples, rate: rate)
        < power(of: 400 + 100 * Double($1), in: samples, rate: rate)
    }!
  }

  /// The ladder steps heard in a mono signal starting at `start`, one per quarter second, analysing the middle
  /// half of each quarter (away from the step edges).
  public static func ladderSteps(_ mono: [Float], from start: Int, rate: Int, count: Int) -> [Int] {
    let quarter = rate / 4
    return (0..<count).compactMap { k in
      let lower = start + k * quarter + quarter / 4
      let upper = lower + quarter / 2
      guard upper <= mono.count else { return nil }
      return ladderStep(in: mono[lower..<upper], rate: rate)
    }
  }

  /// The largest absolute difference between `recorded` (from `offset`) and `reference`, over `reference`'s length.
  public static func maximumDifference(_ recorded: [Float], offset: Int, reference: [Float]) -> Float {
    var worst: Float = 0
    for i in 0..<reference.count where offset + i < recorded.count {
      worst = max(worst, abs(recorded[offset + i] - reference[i]))
    }
    return offset + reference.count <= recorded.count ? worst : .infinity
  }

  /// The offset in `recorded` (searched in `range`) where `reference` matches best, by least absolute error
  /// over its first `length` samples.
  public static func bestOffset(of reference: [Float], in recorded: [Float], range: Range<Int>, length: Int = 2048) -> (
    offset: Int, error: Float
  ) {
    var best = (offset: range.lowerBound, error: Float.infinity)
    let probe = Array(reference.prefix(length))
    for offset in range where offset + probe.count <= recorded.count {
      var error: Float = 0
      for i in 0..<probe.count {
        error = max(error, abs(recorded[offset + i] - probe[i]))
        if error >= best.error { break }
      }
      if error < best.error { best = (offset, error) }
    }
    return best
  }
}
