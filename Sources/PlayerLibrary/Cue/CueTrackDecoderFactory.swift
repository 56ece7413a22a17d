import PlayerCore

/// Opens the tracks of cue sheets (``CueTrackPath``: `live.cue/track03`) as decoders of their own, through
/// another factory that opens the audio file; every other path goes to that factory as it is.
public struct CueTrackDecoderFactory: AudioDecoderFactory {
  private let files: any AudioDecoderFactory

  /// Opens audio files, and the files behind cue tracks, with `files`.
  public init(opening files: any AudioDecoderFactory) {
    self.files = files
  }

  /// Opens `path` as a queue played in order would.
  public func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
    try open(path, order: .inOrder)
  }

  /// Opens `path`: a cue track from its sheet's start to its end within the audio file, titled by the sheet and
  /// tagged by it where it says more than the file; anything else with the other factory.
  public func open(_ path: String, order: PlayOrder) throws(PlayerError) -> any AudioDecoder {
    guard let name = CueTrackPath(path), FileKind.of(name.sheet) == .file else {
      return try files.open(path, order: order)
    }
    let sheetFile = try CueSheetFile(path: name.sheet)
    let sheet = sheetFile.sheet
    guard let index = sheet.tracks.firstIndex(where: { $0.number == name.number }) else {
      throw .unsupportedFormat(path: path, detail: "the cue sheet has no audio track \(name.number)")
    }
    let track = sheet.tracks[index]
    guard let audio = sheetFile.audioPath(of: track.file) else {
      throw .fileNotFound(path: sheetFile.named(track.file))
    }
    let whole = try files.open(audio, order: order)
    let rate = whole.info.sampleRate
    var info = whole.info
    info.path = path
    // The file's own title names the whole file (or its album), not this track.
    info.title = track.title
    info.artist = track.performer ?? sheet.performer ?? info.artist
    info.album = sheet.title ?? info.album
    info.trackNumber = String(track.number)
    info.date = sheet.date ?? info.date
    return try CueTrackDecoder(
      whole, start: track.start.frame(sampleRate: rate),
      end: sheet.end(ofTrack: index)?.frame(sampleRate: rate), info: info)
  }
}
