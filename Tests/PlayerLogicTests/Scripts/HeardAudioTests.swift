import Foundation
import PlayerCore
import PlayerScripts
import Testing

/// `expect audio playing`'s judge on recordings built from a known track: a true run is heard from its start,
/// and a seek 10 ms off, a dropout of 5 ms, audio played twice, a track that is not the one the state names
/// are each found and named.
@Suite struct HeardAudioTests {
  static let rate = 44_100
  /// Two seconds of noise: every stretch of it is found in one place only.
  static let track: [Float] = {
    var seed: UInt32 = 12_345
    return (0..<(2 * rate)).map { _ in
      seed = seed &* 1_664_525 &+ 1_013_904_223
      return Float(Int(seed >> 8) % 20_000 - 10_000) / 20_000
    }
  }()

  private func trail(_ recorded: [Float], gain: Float = 1) -> HeardAudio.Trail {
    HeardAudio(recorded: recorded, reference: Self.track, referenceStart: 0, gain: gain).trail()
  }

  private func silence(_ frames: Int) -> [Float] { [Float](repeating: 0, count: frames) }

  private func part(_ range: Range<Int>, gain: Float = 1) -> [Float] { Self.track[range].map { $0 * gain } }

  @Test func audioPlayedFromTheStartIsHeardFromTheStart() {
    let heard = trail(silence(1_000) + part(0..<44_100))
    #expect(
      heard
        == .heard(
          start: 0, end: 44_100, before: nil, silenceBefore: 0, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 0))
    guard case .heard(let text) = heard.verdict(from: 0, tolerance: 0.001, rate: Self.rate) else {
      Issue.record("\(heard)")
      return
    }
    #expect(text.contains("sample for sample"))
  }

  @Test func aSeekThatLands10MillisecondsOffIsFound() {
    // Seeking to 1 s, the player went on from 1.010 s.
    let heard = trail(part(0..<20_000) + part(44_541..<60_000))
    #expect(
      heard
        == .heard(
          start: 44_541, end: 60_000, before: 20_000, silenceBefore: 0, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 0))
    let verdict = heard.verdict(from: 1, tolerance: 0.001, rate: Self.rate)
    guard case .wrong(let text) = verdict else {
      Issue.record("\(verdict)")
      return
    }
    #expect(text.contains("not from 1 s (+10.0 ms)"), "\(text)")
  }

  @Test func aDropoutOf5MillisecondsIsFoundAndMeasured() {
    let heard = trail(silence(500) + part(0..<30_000) + part(30_220..<60_000))
    #expect(
      heard
        == .heard(
          start: 30_220, end: 60_000, before: 30_000, silenceBefore: 0, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 0))
    let verdict = heard.verdict(from: 0, tolerance: 0.001, rate: Self.rate)
    guard case .wrong(let text) = verdict else {
      Issue.record("\(verdict)")
      return
    }
    #expect(text.contains("skipping 5.0 ms"), "\(text)")
  }

  @Test func audioPlayedTwiceIsFound() {
    let heard = trail(part(0..<30_000) + part(29_000..<50_000))
    let verdict = heard.verdict(from: 0, tolerance: 0.001, rate: Self.rate)
    guard case .wrong(let text) = verdict else {
      Issue.record("\(verdict)")
      return
    }
    #expect(text.contains("going back 22.7 ms"), "\(text)")
  }

  @Test func aPauseThatResumesWhereItStoppedKeepsTheTrail() {
    let heard = trail(silence(200) + part(0..<30_000) + silence(5_000) + part(30_000..<50_000))
    #expect(
      heard
        == .heard(
          start: 0, end: 50_000, before: nil, silenceBefore: 0, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 0))
  }

  @Test func aPauseThatResumesElsewhereEndsTheTrail() {
    let heard = trail(silence(200) + part(0..<30_000) + silence(5_000) + part(30_441..<50_000))
    #expect(
      heard
        == .heard(
          start: 30_441, end: 50_000, before: 30_000, silenceBefore: 5_000, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 0))
  }

  @Test func silenceInPlaceOfTheTrackIsNamed() {
    // A mute, or a player that wrote silence for 5 ms while its clock went on.
    let heard = trail(silence(200) + part(0..<30_000) + silence(220) + part(30_220..<50_000))
    #expect(
      heard
        == .heard(
          start: 30_220, end: 50_000, before: 30_000, silenceBefore: 220, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 0))
    guard case .wrong(let text) = heard.verdict(from: 0, tolerance: 0.001, rate: Self.rate) else {
      Issue.record("\(heard)")
      return
    }
    #expect(text.contains("then 5.0 ms of silence in place of the track"), "\(text)")
  }

  @Test func aVolumeChangeKeepsTheTrail() {
    let heard = trail(
      silence(200) + part(0..<30_000) + part(30_000..<50_000, gain: 0.125), gain: 0.125)
    #expect(
      heard
        == .heard(
          start: 0, end: 50_000, before: nil, silenceBefore: 0, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 0))
  }

  @Test func aVolumeChangedRightAtAResumeKeepsTheTrail() {
    let recorded =
      silence(200) + part(0..<30_000) + silence(5_000) + part(30_000..<30_010) + part(30_010..<50_000, gain: 0.2)
    #expect(
      trail(recorded, gain: 0.2)
        == .heard(
          start: 0, end: 50_000, before: nil, silenceBefore: 0, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 0))
    let atOnce = silence(200) + part(0..<30_000) + silence(5_000) + part(30_000..<50_000, gain: 0.2)
    #expect(
      trail(atOnce, gain: 0.2)
        == .heard(
          start: 0, end: 50_000, before: nil, silenceBefore: 0, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 0))
  }

  /// A steady tone matches itself a period away: where audio that began inside one began cannot be told, while
  /// audio that reaches back past a change of tone is found where it is.
  @Test func aSteadyToneIsPlacedByWhatCameBeforeItOrNotJudged() {
    // 100 Hz for a second, then 150 Hz: periods of exactly 441 and 294 frames.
    let tones: [Float] = (0..<88_200).map { frame in
      let hertz = frame < 44_100 ? 100.0 : 150.0
      return Float(sin(2 * Double.pi * hertz * Double(frame) / 44_100) * 0.5)
    }
    func trail(_ recorded: [Float]) -> HeardAudio.Trail {
      HeardAudio(recorded: recorded, reference: tones, referenceStart: 0, gain: 0.125).trail()
    }
    let acrossTheChange = silence(300) + tones[20_000..<60_000].map { $0 * 0.125 }
    #expect(
      trail(acrossTheChange)
        == .heard(
          start: 20_000, end: 60_000, before: nil, silenceBefore: 0, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 0))
    // A seek from the first tone into the middle of the second.
    let intoTheTone = (tones[0..<10_000] + tones[50_000..<60_000]).map { $0 * 0.125 }
    #expect(trail(Array(intoTheTone)) == .ambiguous)
    guard case .notJudged(let why) = HeardAudio.Trail.ambiguous.verdict(from: 1.2, tolerance: 0.001, rate: 44_100)
    else {
      Issue.record("a steady tone was judged")
      return
    }
    #expect(why.contains("steady tone"))
  }

  @Test func whatTheSinkPlayedAfterTheTrackIsItsTail() {
    // The track stopped at 0.5 s and the sink went on with other audio for 2,000 frames.
    let other = (0..<2_000).map { Float(($0 * 7_919) % 1_000) / 2_000 - 0.25 }
    let recorded = silence(100) + part(0..<22_050) + other
    // The trail starts from the last audible frame: the other audio, which is not the track.
    #expect(trail(recorded) == .notFound)
    // A quiet passage of the track is the track: the end goes on through it.
    var quiet = Self.track
    for index in 30_000..<31_000 { quiet[index] = 0 }
    let heard = HeardAudio(
      recorded: silence(100) + Array(quiet[0..<31_000]) + silence(500), reference: quiet, referenceStart: 0, gain: 1
    ).trail()
    #expect(
      heard
        == .heard(
          start: 0, end: 31_000, before: nil, silenceBefore: 0, reachedRecordingStart: false,
          reachedReferenceStart: false, tail: 500))
  }

  @Test func aTrailLongerThanTheReferenceIsNotTakenForItsStart() {
    // The reference was decoded from 0.5 s; the sink played the track from 0.
    let heard = HeardAudio(
      recorded: silence(100) + part(0..<44_100), reference: part(22_050..<88_200), referenceStart: 22_050, gain: 1
    ).trail()
    #expect(
      heard
        == .heard(
          start: 22_050, end: 44_100, before: nil, silenceBefore: 0, reachedRecordingStart: false,
          reachedReferenceStart: true, tail: 0))
    guard case .wrong(let text) = heard.verdict(from: 1.5, tolerance: 3, rate: Self.rate) else {
      Issue.record("\(heard)")
      return
    }
    #expect(text.contains("from before 0.5 s"), "\(text)")
  }

  @Test func aReferenceShorterThanTheProbeIsNotFound() {
    let heard = HeardAudio(recorded: part(0..<5_000), reference: part(0..<100), referenceStart: 0, gain: 1)
    #expect(heard.trail() == .notFound)
    #expect(
      HeardAudio(recorded: part(0..<5_000), reference: [], referenceStart: 0, gain: 1).trail() == .notFound
    )
  }

  @Test func silenceIsNothingHeardAndOtherAudioIsNotTheTrack() {
    #expect(trail(silence(10_000)) == .nothingHeard)
    let other = (0..<10_000).map { Float(($0 * 7_919) % 1_000) / 2_000 - 0.25 }
    #expect(trail(other) == .notFound)
  }
}
