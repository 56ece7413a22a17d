/// A cue sheet: the tracks of one or more audio files, each starting at an index counted in CD frames (75 per
/// second) from the start of its file. Read by ``CueSheetParser``.
public struct CueSheet: Equatable, Sendable {
  /// One audio track of the sheet.
  public struct Track: Equatable, Sendable {
    /// The number after `TRACK`.
    public var number: Int
    /// The audio file it is in, as the `FILE` line names it (relative to the sheet's folder, usually).
    public var file: String
    /// `TITLE` within the track.
    public var title: String?
    /// `PERFORMER` within the track.
    public var performer: String?
    /// `INDEX 01`: where the track starts, in CD frames from the start of `file`.
    public var start: Int
    /// `INDEX 00`, when given: where the track's pregap starts. The pregap is played as the end of the track
    /// before it, so that an album played through loses nothing.
    public var pregap: Int?
  }

  /// `TITLE` before the first track: the album.
  public var title: String?
  /// `PERFORMER` before the first track.
  public var performer: String?
  /// `REM DATE`.
  public var date: String?
  /// The audio tracks that have an `INDEX 01`, in the sheet's order.
  public var tracks: [Track] = []
  /// Lines that could not be taken; the tracks read around them are kept.
  public var problems: [Problem] = []

  /// A line that could not be taken.
  public struct Problem: Equatable, Sendable {
    /// Its 1-based number.
    public var line: Int
    /// Why, for a person.
    public var reason: String
  }

  /// CD frames per second: cue sheets count time in them.
  public static let framesPerSecond = 75

  /// Where track `index` (of ``tracks``) ends, in CD frames of its file: the next track's `INDEX 01` when that
  /// track is in the same file; nil when it plays to the end of the file.
  public func end(ofTrack index: Int) -> Int? {
    let next = index + 1
    guard next < tracks.count, tracks[next].file == tracks[index].file else { return nil }
    return tracks[next].start
  }

  /// `cdFrames` in audio frames at `sampleRate`: exact at 44.1 kHz (588 a CD frame) and 48 kHz (640).
  public static func audioFrame(_ cdFrames: Int, sampleRate: Int) -> Int64 {
    Int64(cdFrames) * Int64(sampleRate) / Int64(framesPerSecond)
  }
}
