import PlayerCore

#if canImport(Glibc)
  import Glibc
#endif

/// A file's size and modification time: when both are unchanged, the file is taken as unchanged (as rsync and
/// make do): the library index reads its tags again only when it changed, and a resumed session starts a
/// changed file from 0.
public struct FileStamp: Codable, Sendable, Equatable, Hashable {
  /// The size in bytes.
  public var size: Int64
  /// The modification time in nanoseconds since 1970.
  public var modified: Int64

  /// Creates a stamp.
  public init(size: Int64, modified: Int64) {
    self.size = size
    self.modified = modified
  }

  /// The stamp of the file at `path` (symlinks followed); nil when it cannot be read.
  public init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    self.init(
      size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
  }

  /// The stamp of what the queue path `track` is read from: the file, or for a cue track (``CueTrackPath``) both
  /// its sheet and the audio file the sheet names, so that re-tagging or re-ripping the audio counts as a change
  /// of the track. Nil when a file cannot be read.
  public init?(track: String) {
    guard let cue = CueTrackPath(track), FileKind.of(cue.sheet) == .file else {
      self.init(path: track)
      return
    }
    guard let sheet = FileStamp(path: cue.sheet) else { return nil }
    // A sheet inside a FLAC file is its own audio file.
    guard let audio = CueSheetFile.audioFile(of: cue), audio != cue.sheet, let heard = FileStamp(path: audio) else {
      self = sheet
      return
    }
    self.init(size: sheet.size &+ heard.size, modified: sheet.modified &+ heard.modified)
  }
}
