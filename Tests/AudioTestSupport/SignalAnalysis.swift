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

  /// Like ``ladderSteps(_:from:rate:count:)``, but a silent quarter (a dropout on a busy machine) does not shift
  /// the grid: the reading starts again at the next audible frame. Returns the steps and the silences skipped,
  /// in frames, for tests that check an order, not gaplessness.
  public static func ladderStepsAcrossSilences(_ mono: [Float], from start: Int, rate: Int, count: Int) -> (
    steps: [Int], silences: [Int]
  ) {
    let quarter = rate / 4
    var steps: [Int] = []
    var silences: [Int] = []
    var anchor = start
    while steps.count < count, anchor + quarter <= mono.count {
      let window = mono[(anchor + quarter / 4)..<(anchor + 3 * quarter / 4)]
      if window.allSatisfy({ abs($0) < 0.01 }) {
        guard let next = mono[(anchor + quarter / 4)...].firstIndex(where: { abs($0) > 0.05 }) else { break }
        silences.append(next - anchor)
        anchor = next
        continue
      }
      steps.append(ladderStep(in: window, rate: rate))
      anchor += quarter
    }
    return (steps, silences)
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

  /// Where `probe` lies in `signal` (searched at the offsets in `range`) to a fraction of a frame, and how well it
  /// matches there: the peak of the normalised cross-correlation, refined by a parabola through its neighbours.
  /// For audio that a server resampled, where no recorded sample equals the file's.
  public static func correlate(_ probe: [Float], in signal: [Float], range: Range<Int>) -> (
    offset: Double, correlation: Float
  ) {
    let length = probe.count
    let lower = max(0, range.lowerBound)
    let upper = min(range.upperBound, signal.count - length + 1)
    guard length > 0, lower < upper else { return (Double(lower), 0) }
    let probeEnergy = probe.reduce(0.0) { $0 + Double($1) * Double($1) }
    var scores = [Double](repeating: 0, count: upper - lower)
    signal.withUnsafeBufferPointer { recorded in
      probe.withUnsafeBufferPointer { wanted in
        var energy = (lower..<(lower + length)).reduce(0.0) { $0 + Double(recorded[$1]) * Double(recorded[$1]) }
        for index in scores.indices {
          let offset = lower + index
          var dot: Float = 0
          for i in 0..<length { dot += recorded[offset + i] * wanted[i] }
          let norm = (max(energy, 0) * probeEnergy).squareRoot()
          scores[index] = norm > 1e-9 ? Double(dot) / norm : 0
          // The window's energy slides with it.
          if offset + length < recorded.count {
            let entering = Double(recorded[offset + length])
            let leaving = Double(recorded[offset])
            energy += entering * entering - leaving * leaving
          }
        }
      }
    }
    let best = scores.indices.max { scores[$0] < scores[$1] }!
    var refined = Double(best)
    if best > 0, best < scores.count - 1 {
      let (before, peak, after) = (scores[best - 1], scores[best], scores[best + 1])
      let curvature = before - 2 * peak + after
      if curvature < 0 { refined += 0.5 * (before - after) / curvature }
    }
    return (Double(lower) + refined, Float(scores[best]))
  }
}
