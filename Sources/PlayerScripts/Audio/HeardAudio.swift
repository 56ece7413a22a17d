/// Finds a track's own samples in a recording of the sink, sample for sample, and follows them back to where
/// they began: the judge of `expect audio playing`.
///
/// The recording and the reference are one channel at one rate (a resampled sink cannot be judged so). Going
/// back from the last audio heard, each recorded frame must be the reference's frame before, times the stream's
/// gain; a silent stretch is a pause when the audio before it ends where the audio after it resumed, and a new
/// gain (a volume change) is taken up when it holds for a stretch. The first frame that is neither is where the
/// audio began: a seek that lands 10 ms off, or a dropout of 5 ms, ends the trail there.
public struct HeardAudio: Sendable {
  /// The recorded channel, oldest first.
  public var recorded: [Float]
  /// The track's channel (decoded as splay decodes it), from frame `referenceStart` of the track.
  public var reference: [Float]
  /// The track frame of `reference[0]`.
  public var referenceStart: Int
  /// The stream's gain at the sink (its volume as a linear factor) when the last audio was heard.
  public var gain: Float

  /// How far a recorded sample may be from the reference's times the gain: an s16 sink rounds to 1/32768, a
  /// float sink is exact to float rounding.
  static let sampleTolerance: Float = 0.0002
  /// What counts as silence at the sink.
  public static let silence: Float = 0.0001
  /// How many frames the last audio heard is located by.
  static let probeLength = 1024

  /// What the trail found.
  public enum Trail: Equatable, Sendable {
    /// Nothing audible was recorded.
    case nothingHeard
    /// The audio heard last is a steady tone that matches the track in several places equally well: where it
    /// began cannot be told to the frame.
    case ambiguous
    /// The last audio heard is not the track's near where the state says it is.
    case notFound
    /// The track was heard without a break from frame `start` to frame `end` (exclusive); `before` is the track
    /// frame the audio before the break was at, when it was the track's (a dropout or a wrong seek), and
    /// `silenceBefore` how many silent frames came between it and `start` (a mute, or a dropout to silence);
    /// `reachedRecordingStart` says the trail ran into the start of the recording, `reachedReferenceStart` into
    /// the start of the reference (the track was heard from further back than it was decoded); `tail` is how
    /// many recorded frames came after `end` that are not the track's (the sink stopped playing it).
    case heard(
      start: Int, end: Int, before: Int?, silenceBefore: Int, reachedRecordingStart: Bool,
      reachedReferenceStart: Bool, tail: Int)
  }

  /// Creates a judge over `recorded`, against `reference` from track frame `referenceStart`.
  public init(recorded: [Float], reference: [Float], referenceStart: Int, gain: Float) {
    self.recorded = recorded
    self.reference = reference
    self.referenceStart = referenceStart
    self.gain = gain
  }

  /// Follows the last audio heard back to where it began.
  public func trail() -> Trail {
    // Through buffer pointers: a check judges hundreds of thousands of frames, in debug builds too.
    recorded.withUnsafeBufferPointer { recorded in
      reference.withUnsafeBufferPointer { reference in
        Tracer(recorded: recorded, reference: reference, referenceStart: referenceStart, gain: gain).trail()
      }
    }
  }

  /// How many places the last audio heard may match before it is taken for a steady tone.
  static let maximumCandidates = 256
}

/// The trail's work over the two channels.
private struct Tracer {
  let recorded: UnsafeBufferPointer<Float>
  let reference: UnsafeBufferPointer<Float>
  let referenceStart: Int
  let gain: Float

  typealias Trail = HeardAudio.Trail
  static let sampleTolerance = HeardAudio.sampleTolerance
  static let silence = HeardAudio.silence
  static let probeLength = HeardAudio.probeLength
  static let maximumCandidates = HeardAudio.maximumCandidates

  /// Follows the last audio heard back to where it began.
  func trail() -> Trail {
    guard let last = recorded.lastIndex(where: { abs($0) > Self.silence }) else { return .nothingHeard }
    let length = min(Self.probeLength, last + 1)
    let probeStart = last + 1 - length
    guard reference.count >= length else { return .notFound }
    let found = candidates(probeStart: probeStart, length: length)
    guard !found.isEmpty else { return .notFound }
    guard found.count <= Self.maximumCandidates else { return .ambiguous }
    // A steady tone matches a period away too: the true place is the one whose trail goes furthest back. Two
    // that go as far (a seek into a steady tone) cannot be told apart.
    let reaches = found.map { follow(probeStart: probeStart, length: length, found: $0) }
    guard let earliest = reaches.min(by: { $0.r < $1.r }) else { return .notFound }
    guard reaches.filter({ $0.r == earliest.r }).count == 1 else { return .ambiguous }
    return trail(earliest)
  }

  /// How far a trail reaches: the earliest recorded frame `r` matched, the reference frame `f` it is, and the
  /// ends matched forward.
  struct Reach {
    var r: Int
    var f: Int
    var recordedEnd: Int
    var referenceEnd: Int
  }

  /// The trail of `reach`, with what the sink played before its start.
  private func trail(_ reach: Reach) -> Trail {
    let (r, f) = (reach.r, reach.f)
    var before: Int?
    if r > 0, f > 0 { before = locateBefore(recordedEnd: r, near: f).map { referenceStart + $0 } }
    let silent = recorded[..<r].lastIndex { abs($0) > Self.silence }.map { r - 1 - $0 } ?? r
    return .heard(
      start: referenceStart + f, end: referenceStart + reach.referenceEnd, before: before,
      silenceBefore: before == nil ? 0 : silent, reachedRecordingStart: r == 0,
      reachedReferenceStart: f == 0 && r > 0 && referenceStart > 0, tail: recorded.count - reach.recordedEnd)
  }

  /// How far the trail back from the probe at `probeStart`, found at reference index `found`, reaches.
  private func follow(probeStart: Int, length: Int, found: Int) -> Reach {
    // Forward past the probe while the track goes on (a quiet passage of it is silence at the sink too).
    var recordedEnd = probeStart + length
    var referenceEnd = found + length
    while recordedEnd < recorded.count, referenceEnd < reference.count,
      matches(recorded[recordedEnd], reference[referenceEnd], gain: gain)
    {
      recordedEnd += 1
      referenceEnd += 1
    }
    var r = probeStart  // recorded index of the earliest frame matched so far
    var f = found  // reference index matching recorded[r]
    var gain = self.gain
    while r > 0, f > 0 {
      if matches(recorded[r - 1], reference[f - 1], gain: gain) {
        r -= 1
        f -= 1
        continue
      }
      // A pause: silence at the sink, and before it the audio that the resume continued (the volume may have
      // changed right at the resume).
      if abs(recorded[r - 1]) <= Self.silence {
        guard let before = recorded[..<(r - 1)].lastIndex(where: { abs($0) > Self.silence }) else { break }
        if continues(recordedEnd: before + 1, referenceEnd: f, gain: gain) {
          r = before + 1
          continue
        }
        guard let newGain = gainHolding(recordedEnd: before + 1, referenceEnd: f) else { break }
        gain = newGain
        r = before + 1
        continue
      }
      // A volume change: the same audio at another gain.
      if let newGain = gainHolding(recordedEnd: r, referenceEnd: f), newGain != gain {
        gain = newGain
        continue
      }
      break
    }
    return Reach(r: r, f: f, recordedEnd: recordedEnd, referenceEnd: referenceEnd)
  }

  private func matches(_ heard: Float, _ track: Float, gain: Float) -> Bool {
    abs(heard - track * gain) <= Self.sampleTolerance
  }

  /// The reference indices where `recorded[probeStart..<probeStart+length]` is found, one more than
  /// ``maximumCandidates`` at most.
  private func candidates(probeStart: Int, length: Int) -> [Int] {
    var found: [Int] = []
    for offset in 0...(reference.count - length)
    where error(probeStart, offset, length, gain: gain, within: Self.sampleTolerance) != nil {
      found.append(offset)
      if found.count > Self.maximumCandidates { break }
    }
    return found
  }

  /// The largest difference between the recorded frames and the reference's times `gain`, or nil once one
  /// exceeds `limit`.
  private func error(_ recordedStart: Int, _ offset: Int, _ length: Int, gain: Float, within limit: Float) -> Float? {
    var largest: Float = 0
    for index in 0..<length {
      let difference = abs(recorded[recordedStart + index] - reference[offset + index] * gain)
      if difference > limit { return nil }
      largest = max(largest, difference)
    }
    return largest
  }

  private func fits(_ recordedStart: Int, _ offset: Int, _ length: Int, gain: Float) -> Bool {
    error(recordedStart, offset, length, gain: gain, within: Self.sampleTolerance) != nil
  }

  /// How many frames of audio end at `recordedEnd`, back to a pause (8 silent frames), at most `limit`.
  private func audibleRun(endingAt recordedEnd: Int, limit: Int) -> Int {
    var run = 0
    var silent = 0
    while run < min(limit, recordedEnd) {
      silent = abs(recorded[recordedEnd - run - 1]) <= Self.silence ? silent + 1 : 0
      run += 1
      if silent == 8 { return run - 8 }
    }
    return run
  }

  /// Whether the recorded audio ending at `recordedEnd` (64 frames, or back to a pause) is the reference's
  /// ending at `referenceEnd`.
  private func continues(recordedEnd: Int, referenceEnd: Int, gain: Float) -> Bool {
    let length = min(audibleRun(endingAt: recordedEnd, limit: 64), referenceEnd)
    return length > 0 && fits(recordedEnd - length, referenceEnd - length, length, gain: gain)
  }

  /// The gain under which the recorded audio ending at `recordedEnd` (128 frames, or back to a pause, at least
  /// 4) is the reference's ending at `referenceEnd`, when one does.
  private func gainHolding(recordedEnd: Int, referenceEnd: Int) -> Float? {
    let length = min(audibleRun(endingAt: recordedEnd, limit: 128), referenceEnd)
    guard length >= 4 else { return nil }
    var dot: Float = 0
    var energy: Float = 0
    for index in 0..<length {
      let track = reference[referenceEnd - length + index]
      dot += recorded[recordedEnd - length + index] * track
      energy += track * track
    }
    guard energy > 1e-4 else { return nil }
    let gain = dot / energy
    guard gain > 0.001, continues(recordedEnd: recordedEnd, referenceEnd: referenceEnd, gain: gain) else { return nil }
    return gain
  }

  /// Where in the reference the 256 recorded frames ending at `recordedEnd` are, within a second of `near`: the
  /// track position the sink played just before the trail's start.
  private func locateBefore(recordedEnd end: Int, near: Int) -> Int? {
    // Past a pause: the audio before the silence.
    guard let last = recorded[..<end].lastIndex(where: { abs($0) > Self.silence }) else { return nil }
    let recordedEnd = last + 1
    let length = min(256, recordedEnd)
    guard length >= 32 else { return nil }
    let low = max(0, near - 48_000)
    let high = min(reference.count - length, near + 48_000)
    guard low <= high else { return nil }
    var best: Int?
    for offset in low...high where fits(recordedEnd - length, offset, length, gain: gain) {
      if best.map({ abs(offset + length - near) < abs($0 + length - near) }) ?? true { best = offset }
    }
    return best.map { $0 + length }
  }
}
