/// The cue sheets of one folder, and what they change in it: a folder holding `album.flac` and `album.cue`
/// gives the sheet's tracks in the file's place, and neither the file as a whole nor the sheet besides; so does
/// a FLAC file of the folder that carries a sheet inside (``FLACCueSheet``).
struct FolderCueSheets {
  /// The tracks to add in place of a file of the folder: the first of a sheet's audio files that is in the
  /// folder, or the sheet itself when none is; for a sheet inside a FLAC file, that file.
  private(set) var tracks: [String: [String]] = [:]
  /// The files that are not added as they are: the sheets that gave tracks, and their audio files.
  private(set) var covered: Set<String> = []
  /// The audio files the sheets name that are not there, by sheet.
  private(set) var missing: [(sheet: String, name: String)] = []

  /// A folder without sheets.
  init() {}

  /// Reads `sheets`, paths of cue sheets among the folder's `files`, in the folder's order, then looks into
  /// `flacFiles` that no `.cue` sheet covers for a sheet inside. A sheet that cannot be read, or gives no track,
  /// changes nothing: its audio file plays whole, unless it is a FLAC file with a sheet inside.
  init(sheets: [String], flacFiles: [String] = [], files: Set<String>) {
    for path in sheets {
      guard let sheet = try? CueSheetFile(path: path) else { continue }
      let (paths, audioFiles, names) = sheet.tracks()
      missing += names.map { (path, sheet.named($0)) }
      // Two sheets of one album (a second edition, another naming): the first in the folder's order is taken.
      guard !paths.isEmpty, !audioFiles.contains(where: covered.contains) else { continue }
      let place = audioFiles.first(where: files.contains) ?? path
      tracks[place, default: []] += paths
      covered.insert(path)
      covered.formUnion(audioFiles)
    }
    for path in flacFiles where !covered.contains(path) {
      guard let sheet = try? CueSheetFile(path: path) else { continue }
      let paths = sheet.tracks().paths
      guard !paths.isEmpty else { continue }
      tracks[path] = paths
      covered.insert(path)
    }
  }
}
