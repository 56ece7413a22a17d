import PlayerCore

/// A cue sheet read from disk, with the audio files its `FILE` lines name found beside it; or the sheet a FLAC
/// file carries inside (``FLACCueSheet``), whose tracks are in that file.
public struct CueSheetFile: Sendable {
  /// Where the sheet is: a `.cue` file, or the audio file that holds it.
  public let path: String
  /// What it says.
  public let sheet: CueSheet
  /// Whether the sheet is inside the audio file at ``path``.
  public let isEmbedded: Bool

  /// Audio extensions tried, in this order, when the file a `FILE` line names is not there: rippers often
  /// name the WAV they read, and the sheet travels with the FLAC made of it.
  static let audioExtensions = ["flac", "wav", "wv", "ape", "ogg", "opus", "mp3", "m4a", "aiff", "aif"]

  /// Whether `path` names a cue sheet by its extension (`.cue`, any case).
  public static func isSheet(_ path: String) -> Bool {
    PathExtension.lowercased(of: path) == "cue"
  }

  /// Reads and parses the sheet at `path`, a `.cue` file or a FLAC file with a sheet inside; fails as opening a
  /// file does when it cannot be read, and for any other file.
  public init(path: String) throws(PlayerError) {
    self.path = path
    // Opening a FIFO would wait for a writer: only regular files are read.
    switch FileKind.of(path) {
    case .file: break
    case .missing: throw .fileNotFound(path: path)
    default: throw .notAFile(path: path)
    }
    guard Self.isSheet(path) else {
      guard let sheet = FLACCueSheet.read(atPath: path) else {
        throw .unsupportedFormat(path: path, detail: "no cue sheet inside this file")
      }
      self.sheet = sheet
      isEmbedded = true
      return
    }
    isEmbedded = false
    let bytes: [UInt8]
    do throws(FileContents.ReadError) {
      bytes = try FileContents.read(path: path, limit: CueSheetParser.maximumBytes)
    } catch {
      throw .unsupportedFormat(path: path, detail: error.reason)
    }
    sheet = CueSheetParser.parse(bytes)
  }

  /// The audio file a `FILE` line's `name` means: taken from the sheet's folder unless absolute; when it is
  /// not there, a file of the same name with another audio extension. Nil when there is none.
  public func audioPath(of name: String) -> String? {
    if isEmbedded { return path }
    let named = named(name)
    if FileKind.of(named) == .file { return named }
    let stem = PathExtension.dot(in: named).map { named[..<$0] } ?? named[...]
    for ext in Self.audioExtensions where FileKind.of(stem + "." + ext) == .file {
      return stem + "." + ext
    }
    return nil
  }

  /// The audio file `track` is in; nil when its sheet cannot be read, has no such track, or its file is not there.
  public static func audioFile(of track: CueTrackPath) -> String? {
    guard let sheet = try? CueSheetFile(path: track.sheet),
      let file = sheet.sheet.tracks.first(where: { $0.number == track.number })?.file
    else { return nil }
    return sheet.audioPath(of: file)
  }

  /// The path a `FILE` line's `name` stands for: taken from the sheet's folder unless absolute.
  public func named(_ name: String) -> String {
    if isEmbedded { return path }
    let folder = FileContents.directory(of: path)
    return name.hasPrefix("/") || folder.isEmpty ? name : (folder == "/" ? "" : folder) + "/" + name
  }

  /// What the sheet gives a queue: the paths of its tracks whose audio file exists (``CueTrackPath``), the
  /// audio files they are in, and the `FILE` names that were not found.
  public func tracks() -> (paths: [String], audioFiles: [String], missing: [String]) {
    var found: [String: String?] = [:]
    var result: (paths: [String], audioFiles: [String], missing: [String]) = ([], [], [])
    for track in sheet.tracks {
      let audio: String?
      if let known = found[track.file] {
        audio = known
      } else {
        audio = audioPath(of: track.file)
        found[track.file] = audio
        if let audio { result.audioFiles.append(audio) } else { result.missing.append(track.file) }
      }
      if audio != nil { result.paths.append(CueTrackPath(sheet: path, number: track.number).path) }
    }
    return result
  }
}
