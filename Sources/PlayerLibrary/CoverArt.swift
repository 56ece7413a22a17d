import PlayerCore

/// Finds a track's picture, so that desktop media widgets can show it (`mpris:artUrl`): the one embedded in the
/// file (``EmbeddedPicture``, kept as a file by ``PictureFiles``), else the album's picture in the track's own
/// folder, where rippers and music managers (beets, Picard, foobar2000, iTunes exports) keep it.
public enum CoverArt {
  /// Names that say "the album's picture", best first; matched without case and extension.
  static let preferredNames = ["cover", "folder", "front", "album", "albumart", "albumartsmall", "thumb"]
  /// Picture types a desktop shows, matched without case.
  static let pictureExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "gif", "bmp"]

  /// The picture among the file `names` of one folder: a preferred name (`cover.jpg`, `Folder.PNG`…) in the order
  /// of ``preferredNames``; else a picture whose name mentions "cover" or "front" (`Album - Cover.jpg`), the
  /// first in natural order; else the folder's only picture. Nil when none qualifies (several unnamed pictures
  /// are scans or booklets, not the cover).
  public static func choose(among names: [String]) -> String? {
    let pictures = names.compactMap { name -> (name: String, stem: String)? in
      guard let dot = name.lastIndex(of: "."), dot != name.startIndex,
        pictureExtensions.contains(name[name.index(after: dot)...].lowercased())
      else { return nil }
      return (name, name[..<dot].lowercased())
    }.sorted { NaturalOrder.areInIncreasingOrder($0.name, $1.name) }
    for preferred in preferredNames {
      if let match = pictures.first(where: { $0.stem == preferred }) { return match.name }
    }
    if let named = pictures.first(where: { $0.stem.contains("cover") || $0.stem.contains("front") }) {
      return named.name
    }
    return pictures.count == 1 ? pictures[0].name : nil
  }

  /// The path of the picture of the track at `path` (for a cue track, its audio file's): its embedded picture,
  /// written out, else its folder's (``inFolder(ofTrackAt:)``); nil when there is neither.
  public static func find(forTrackAt path: String) -> String? {
    // A stream is no file, and has no folder to look in.
    if StreamURL.isStream(path) { return nil }
    // A cue track's picture is its file's.
    if let track = CueTrackPath(path), let file = CueSheetFile.audioFile(of: track) { return find(forTrackAt: file) }
    if let embedded = EmbeddedPicture.read(atPath: path), let file = PictureFiles.store(embedded) { return file }
    return inFolder(ofTrackAt: path)
  }

  /// The path of the cover picture in the folder of the track at `path` (see ``choose(among:)``), or nil when
  /// the folder has none or cannot be read. Reads the folder once; a relative track path gives a relative path.
  public static func inFolder(ofTrackAt path: String) -> String? {
    let folder = FileContents.directory(of: path)
    let listed = folder.isEmpty ? "." : folder
    guard let entries = DirectoryEntries.list(listed) else { return nil }
    let files = entries.filter { $0.isFile(in: listed) }.map(\.name)
    guard let name = choose(among: files) else { return nil }
    return folder.isEmpty ? name : (folder == "/" ? "/" : folder + "/") + name
  }
}
