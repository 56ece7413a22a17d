import PlayerCore

#if canImport(Glibc)
  import Glibc
#endif

/// Turns what a person names (files, folders, playlists) into the files to queue.
///
/// A folder gives the audio files under it, recursively, in ``NaturalOrder``, recognised by their content
/// (``AudioContentProbe``); hidden entries are left out and a folder reached twice (a symlink loop) is walked
/// once. An `.m3u`, `.m3u8` or `.pls` playlist gives its entries, relative ones taken from its own folder;
/// entries that do not exist are skipped with a line each, and a playlist is followed once, so one that
/// includes itself ends. A `.cue` sheet gives its tracks (``CueTrackPath``), and so does a FLAC file with a sheet
/// inside when it is named itself, among the first ``flacFilesLookedInto`` of one expansion, or when its folder
/// holds at most ``flacFilesPerFolderLookedInto`` FLAC files (looking inside every FLAC file of a folder or a long
/// list would cost an `open` each, minutes on a cold disk). Any other path is
/// passed on as it is: the decoder that opens it says what is wrong.
///
/// Stops collecting past `limit` tracks: the queue refuses more, and walking a whole disk to say so is waste.
public struct TrackListExpander: Sendable {
  /// More tracks than this are not collected (the queue's limit, by default).
  public var limit: Int
  /// Decides whether a file found in a folder is worth queueing.
  public var isAudio: @Sendable (FolderFile) -> Bool

  /// How many FLAC files named as arguments one expansion looks into for a cue sheet inside.
  public static let flacFilesLookedInto = 64
  /// A folder with at most this many FLAC files has each looked into for a cue sheet inside (an album ripped as
  /// one file, or one per disc); a folder of more is an album of one file per track, whose 200,000-file walk an
  /// `open` per file would cost seconds.
  public static let flacFilesPerFolderLookedInto = 4

  /// Playlists larger than this are refused: a playlist of the queue's limit is far smaller.
  static let maximumPlaylistBytes = 16 << 20

  /// Creates an expander that stops past `limit` tracks and keeps the folder files `isAudio` accepts.
  public init(
    limit: Int = PlayerStateMachine.maximumQueueLength,
    isAudio: @escaping @Sendable (FolderFile) -> Bool = AudioContentProbe.looksLikeAudio
  ) {
    self.limit = limit
    self.isAudio = isAudio
  }

  /// Whether `paths` holds anything to expand; when not, ``expand(_:)`` would return them unchanged.
  public static func needsExpansion(_ paths: [String]) -> Bool {
    paths.contains {
      PlaylistParser.kind(ofPath: $0) != nil || CueSheetFile.isSheet($0) || FileKind.of($0) == .directory
    } || paths.prefix(flacFilesLookedInto).contains(where: FLACCueSheet.mayHoldOne)
  }

  /// The tracks that `arguments` name, in order.
  public func expand(_ arguments: [String]) -> TrackList {
    var walk = Walk(expander: self)
    for argument in arguments where !walk.full {
      walk.add(argument, origin: nil, explicit: true)
    }
    return walk.result
  }

  /// The tracks a playlist's text names (`splay play -` reads one from standard input); relative entries
  /// are taken from `folder` ("" for the working directory), and `name` stands for it in messages.
  public func expand(playlist bytes: [UInt8], kind: PlaylistParser.Kind, name: String, folder: String) -> TrackList {
    var walk = Walk(expander: self)
    walk.addEntries(of: bytes, kind: kind, name: name, folder: folder)
    return walk.result
  }
}

/// One expansion's state: what was collected and which folders and playlists were already followed.
private struct Walk {
  let expander: TrackListExpander
  var result = TrackList()
  /// FLAC files looked into for a cue sheet so far (``TrackListExpander/flacFilesLookedInto`` at most).
  var flacFilesLookedInto = 0
  /// Device and inode of every playlist followed, so that one that includes itself ends.
  var followedPlaylists: Set<[UInt64]> = []
  /// The probing of the folder being walked, on other cores; collected at the end of each folder named.
  let probes: FolderProbes

  init(expander: TrackListExpander) {
    self.expander = expander
    probes = FolderProbes(isAudio: expander.isAudio)
  }

  /// True once more tracks than the limit were collected: the rest is not looked at.
  var full: Bool { result.paths.count > expander.limit }

  /// Adds what `path` names. `explicit`: named by the person (an argument), so passed on even when it is
  /// not there, for the decoder to report; a playlist's entries are checked here instead.
  mutating func add(_ path: String, origin: String?, explicit: Bool) {
    // A stream is queued as it is: the decoder that opens it says whether it plays.
    if StreamURL.isStream(path) { return addTracks([path]) }
    if Self.isURL(path) {
      // Said the same way on the command line as in a playlist, not as a missing file.
      return skip(origin, .unsupportedFormat(path: path, detail: Self.onlyLocalFiles))
    }
    if PlaylistParser.kind(ofPath: path) != nil, FileKind.of(path) == .file {
      addPlaylist(path, origin: origin)
      return
    }
    if CueSheetFile.isSheet(path), FileKind.of(path) == .file {
      addCueSheet(path, origin: origin)
      return
    }
    if origin == nil, FLACCueSheet.mayHoldOne(path), flacFilesLookedInto < TrackListExpander.flacFilesLookedInto {
      flacFilesLookedInto += 1
      if let sheet = try? CueSheetFile(path: path) {
        addTracks(sheet.tracks().paths)
        result.summaries.append("\(path): \(sheet.sheet.tracks.count) tracks in its cue sheet")
        return
      }
    }
    switch FileKind.of(path) {
    case .directory:
      let before = result.paths.count
      var visited: Set<[UInt64]> = []
      addFolder(path, visited: &visited)
      result.paths += probes.collect()
      let count = result.paths.count - before
      if count == 0 {
        skip(origin, .noTracks(path: path))
      } else {
        result.summaries.append("\(path): \(count) track\(count == 1 ? "" : "s")")
      }
    case .missing(let code) where !explicit:
      // A cue track (`album.cue/track03`) is not a file, and a playlist may name one.
      if let track = CueTrackPath(path), FileKind.of(track.sheet) == .file { return result.paths.append(path) }
      skip(origin, code == EACCES ? .permissionDenied(path: path) : .fileNotFound(path: path))
    default:
      result.paths.append(path)
    }
  }

  mutating func skip(_ origin: String?, _ error: PlayerError) {
    result.skipped.append(SkippedEntry(origin: origin, error: error))
  }

  /// Inserts the identity (device and inode) of the file at `path` into `set`; false when it was there.
  static func insert(_ path: String, into set: inout Set<[UInt64]>) -> Bool {
    var st = stat()
    guard stat(path, &st) == 0 else { return false }
    return set.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted
  }

  mutating func addPlaylist(_ path: String, origin: String?) {
    guard Self.insert(path, into: &followedPlaylists) else {
      return skip(origin, .unsupportedFormat(path: path, detail: "this playlist was followed already"))
    }
    let bytes: [UInt8]
    do throws(FileContents.ReadError) {
      bytes = try FileContents.read(path: path, limit: TrackListExpander.maximumPlaylistBytes)
    } catch {
      return skip(origin, .unsupportedFormat(path: path, detail: error.reason))
    }
    let before = (result.paths.count, result.skipped.count)
    addEntries(
      of: bytes, kind: PlaylistParser.kind(ofPath: path) ?? .m3u, name: path, folder: FileContents.directory(of: path))
    let count = result.paths.count - before.0
    let missing = result.skipped.count - before.1
    result.summaries.append(
      "\(path): \(count) track\(count == 1 ? "" : "s")" + (missing > 0 ? ", \(missing) skipped" : ""))
  }

  /// Adds the tracks of the cue sheet at `path` (``CueTrackPath``), each audio file it names that is not there
  /// skipped with a line.
  mutating func addCueSheet(_ path: String, origin: String?) {
    let sheet: CueSheetFile
    do throws(PlayerError) {
      sheet = try CueSheetFile(path: path)
    } catch {
      return skip(origin, error)
    }
    let (tracks, _, missing) = sheet.tracks()
    for name in missing { skip(origin ?? path, .fileNotFound(path: sheet.named(name))) }
    // Said, not skipped: the sheet still gives the tracks read around such a line.
    for problem in sheet.sheet.problems { result.summaries.append("\(path):\(problem.line): \(problem.reason)") }
    guard !tracks.isEmpty else { return skip(origin, .noTracks(path: path)) }
    addTracks(tracks)
    result.summaries.append("\(path): \(tracks.count) track\(tracks.count == 1 ? "" : "s")")
  }

  /// Appends `tracks` up to one past the limit (enough for the queue to refuse the load).
  mutating func addTracks(_ tracks: [String]) {
    guard !full else { return }
    result.paths += tracks.prefix(expander.limit + 1 - result.paths.count)
  }

  mutating func addEntries(of bytes: [UInt8], kind: PlaylistParser.Kind, name: String, folder: String) {
    for entry in PlaylistParser.entries(of: bytes, kind: kind) where !full {
      let origin = "\(name):\(entry.line)"
      guard let path = Self.path(of: entry.location, in: folder) else {
        skip(origin, .unsupportedFormat(path: entry.location, detail: Self.onlyLocalFiles))
        continue
      }
      add(path, origin: origin, explicit: false)
    }
  }

  /// The local path an entry names: a `file://` URL decoded, a relative path taken from `folder`, an http(s)
  /// URL as it is; nil for another URL scheme.
  static func path(of location: String, in folder: String) -> String? {
    var location = location
    if location.lowercased().hasPrefix("file://") {
      location = percentDecoded(String(location.dropFirst(7)))
      // file://host/path: only the local host is ours.
      if !location.hasPrefix("/") {
        guard location.lowercased().hasPrefix("localhost/") else { return nil }
        location.removeFirst("localhost".count)
      }
    } else if StreamURL.isStream(location) {
      return location
    } else if isURL(location) {
      return nil
    }
    if location.hasPrefix("/") || folder.isEmpty { return location }
    return tidied(String(joining: folder == "/" ? "" : folder, "/", location))
  }

  /// Why a URL is skipped, wherever it was named.
  static let onlyLocalFiles = "only local files and http(s) streams can be played"

  /// Whether `location` is a URL with an authority (`http://`, `smb://`): `SCHEME://`, the scheme made of letters,
  /// digits, `+`, `-` and `.`. `file://` too: callers that take it check for it first.
  static func isURL(_ location: String) -> Bool {
    guard let colon = location.firstIndex(of: ":"), colon != location.startIndex,
      location[location.index(after: colon)...].hasPrefix("//")
    else { return false }
    return location[..<colon].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
  }

  /// `path` with `.` and `name/..` taken out (`Playlists/../Artist/a.flac` reads `Artist/a.flac`), when that
  /// names the same file: through a symbolic link the two can differ, and then the path stays as written.
  static func tidied(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      if part == "." { continue }
      if part == "..", let last = parts.last, last != ".." {
        parts.removeLast()
      } else {
        parts.append(part)
      }
    }
    let tidy = (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    guard tidy != path else { return path }
    var written = stat()
    var short = stat()
    guard stat(path, &written) == 0 else { return tidy }
    return stat(tidy, &short) == 0 && short.st_dev == written.st_dev && short.st_ino == written.st_ino ? tidy : path
  }

  static func percentDecoded(_ text: String) -> String {
    var bytes: [UInt8] = []
    var utf8 = Array(text.utf8)[...]
    while let byte = utf8.popFirst() {
      if byte == UInt8(ascii: "%"), utf8.count >= 2,
        let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        utf8 = utf8.dropFirst(2)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Adds the audio files under the folder at `path`, subfolders in place, every level in natural order;
  /// a folder already in `visited` (reached again through a link) is not walked again.
  mutating func addFolder(_ path: String, visited: inout Set<[UInt64]>) {
    guard Self.insert(path, into: &visited) else { return }
    let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard folder >= 0, var children = DirectoryEntries.list(path) else {
      let code = errno
      if folder >= 0 { close(folder) }
      return skip(nil, code == EACCES ? .permissionDenied(path: path) : .fileNotFound(path: path))
    }
    defer { close(folder) }
    children.sort { NaturalOrder.areInIncreasingOrder($0.name, $1.name) }
    let prefix = path.hasSuffix("/") ? path : path + "/"
    // One look at each name: `.cue` files are sheets, and up to one past the limit of FLAC files (a folder named
    // `x.flac` is none) may hold one.
    var sheets: [String] = []
    var flacs: [String] = []
    for child in children {
      switch PathExtension.lowercased(of: child.name) {
      case "cue": sheets.append(String(joining: prefix, child.name))
      case "flac" where flacs.count <= TrackListExpander.flacFilesPerFolderLookedInto && child.kind(in: path) == .file:
        flacs.append(String(joining: prefix, child.name))
      default: break
      }
    }
    let lookedInto = flacs.count <= TrackListExpander.flacFilesPerFolderLookedInto ? flacs : []
    // Most folders hold no sheet: their children are not gathered a second time.
    let cues =
      sheets.isEmpty && lookedInto.isEmpty
      ? FolderCueSheets()
      : FolderCueSheets(
        sheets: sheets, flacFiles: lookedInto, files: Set(children.map { String(joining: prefix, $0.name) }))
    for (sheet, name) in cues.missing { skip(sheet, .fileNotFound(path: name)) }
    // The files between two subfolders are probed together, on every core.
    var files: [String] = []
    for child in children where !full {
      switch child.kind(in: path) {
      case .directory:
        addAudio(of: &files, prefix: prefix.utf8.count, folder)
        addFolder(child.path(in: path), visited: &visited)
      case .file:
        let file = String(joining: prefix, child.name)
        if let tracks = cues.tracks[file] {
          // In the file's place: what was probed before it comes first.
          addAudio(of: &files, prefix: prefix.utf8.count, folder)
          result.paths += probes.collect()
          addTracks(tracks)
        } else if !cues.covered.contains(file) {
          files.append(file)
        }
      default: break
      }
    }
    addAudio(of: &files, prefix: prefix.utf8.count, folder)
  }

  /// Adds the audio files among `paths`, files of the open `folder` whose names start at UTF-8 offset
  /// `prefix`, in their order, and empties it. They are probed in the background unless they could reach the
  /// limit: there the count must be exact, so what is in flight is collected first.
  mutating func addAudio(of paths: inout [String], prefix: Int, _ folder: Int32) {
    defer { paths.removeAll() }
    guard !paths.isEmpty, !full else { return }
    guard result.paths.count + probes.pending + paths.count > expander.limit else {
      return probes.submit(paths, nameOffset: prefix, folder: folder)
    }
    result.paths += probes.collect()
    guard !full else { return }
    let audio = paths.filter { expander.isAudio(FolderFile(path: $0, nameOffset: prefix, folder: folder)) }
    // One past the limit is enough for the queue to refuse the load.
    result.paths += audio.prefix(expander.limit + 1 - result.paths.count)
  }
}
