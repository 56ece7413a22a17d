/// A cue sheet: the tracks of one or more audio files, each starting at an index from the start of its file.
/// Read from text by ``CueSheetParser``, or from a FLAC file's `CUESHEET` block by ``FLACCueSheet``.
public struct CueSheet: Equatable, Sendable {
  /// Where an index is in its file.
  public enum Position: Equatable, Hashable, Sendable {
    /// In CD frames, 75 a second: a sheet's text says `mm:ss:ff`.
    case cdFrames(Int)
    /// In samples: FLAC's `CUESHEET` block counts them.
    case samples(Int64)

    /// The audio frame it is at `sampleRate`: exact for CD frames at 44.1 kHz (588 each) and 48 kHz (640).
    public func frame(sampleRate: Int) -> Int64 {
      switch self {
      case .cdFrames(let frames): Int64(frames) * Int64(sampleRate) / Int64(CueSheet.framesPerSecond)
      case .samples(let samples): samples
      }
    }
  }

  /// One audio track of the sheet.
  public struct Track: Equatable, Sendable {
    /// The number after `TRACK`.
    public var number: Int
    /// The audio file it is in, as the `FILE` line names it (relative to the sheet's folder, usually); empty
    /// for a sheet embedded in its audio file.
    public var file: String
    /// `TITLE` within the track.
    public var title: String?
    /// `PERFORMER` within the track.
    public var performer: String?
    /// `INDEX 01`: where the track starts in `file`.
    public var start: Position
    /// `INDEX 00`, when given: where the track's pregap starts. The pregap is played as the end of the track
    /// before it, so that an album played through loses nothing.
    public var pregap: Position?
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

  /// Where track `index` (of ``tracks``) ends in its file: the next track's `INDEX 01` when that track is in the
  /// same file; nil when it plays to the end of the file.
  public func end(ofTrack index: Int) -> Position? {
    let next = index + 1
    guard next < tracks.count, tracks[next].file == tracks[index].file else { return nil }
    return tracks[next].start
  }
}
