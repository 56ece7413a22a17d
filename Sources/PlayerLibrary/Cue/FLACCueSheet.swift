import Glibc
import PlayerCore

/// The cue sheet a FLAC file carries inside: a `CUESHEET` comment holding a sheet's text (what EAC and foobar2000
/// write, titles included), or else its `CUESHEET` metadata block (what `flac --cuesheet` and `metaflac
/// --import-cuesheet-from` write, in samples, without titles). Its tracks' ``CueSheet/Track/file`` is empty:
/// they are in the file itself. A sheet of one track is none: it would only hide the file's own title.
public enum FLACCueSheet {
  /// Whether `path` names a file that may hold a sheet, by its extension (`.flac`, any case): only those are
  /// opened to look.
  public static func mayHoldOne(_ path: String) -> Bool {
    PathExtension.lowercased(of: path) == "flac"
  }

  /// The sheet inside the FLAC file at `path`; nil when it has none, or is not a FLAC file.
  public static func read(atPath path: String) -> CueSheet? {
    // Not blocking: a FIFO named like a FLAC file is refused at once by the check below, not waited on.
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, let head = try? MP4File.read(fd, at: 0, count: 4),
      head.elementsEqual("fLaC".utf8)
    else { return nil }
    // The comment first: it has the titles and performers a block has no room for.
    if let sheet = fromComment(fd) { return sheet }
    for body in FLACMetadata.bodies(of: .cueSheet, fd) {
      if let sheet = fromBlock(body) { return sheet }
    }
    return nil
  }

  /// The sheet of the `CUESHEET` comment, when there is one of two tracks or more in one file.
  private static func fromComment(_ fd: Int32) -> CueSheet? {
    for body in FLACMetadata.bodies(of: .vorbisComment, fd) {
      let comments = ReplayGainTags.vorbisComments(body, from: 0)
      guard let text = comments.first(where: { $0.name.uppercased() == "CUESHEET" })?.value else { return nil }
      var sheet = CueSheetParser.parse(Array(text.utf8))
      for index in sheet.tracks.indices { sheet.tracks[index].file = "" }
      // The tracks of several FILEs would now overlap in one file: only an album in one file is taken.
      return isAlbum(sheet.tracks) ? sheet : nil
    }
    return nil
  }

  /// The sheet a `CUESHEET` block's `body` holds (FLAC format, METADATA_BLOCK_CUESHEET): the audio tracks with
  /// an index 1, at the track's offset plus the index's, in samples. Nil when the block is cut short.
  static func fromBlock(_ body: [UInt8]) -> CueSheet? {
    var reader = BigEndianReader(bytes: body)
    // The catalog number (128 bytes), the lead-in (8), a flag byte and 258 reserved bytes.
    guard reader.skip(128 + 8 + 1 + 258), let count = reader.u8() else { return nil }
    var sheet = CueSheet()
    for _ in 0..<count {
      guard let offset = reader.u64(), let number = reader.u8(), reader.skip(12), let flags = reader.u8(),
        reader.skip(13), let indexCount = reader.u8()
      else { return nil }
      var starts: [UInt8: UInt64] = [:]
      for _ in 0..<indexCount {
        guard let indexOffset = reader.u64(), let index = reader.u8(), reader.skip(3) else { return nil }
        starts[index] = starts[index] ?? offset &+ indexOffset
      }
      // The lead-out (170 on a CD, 255 otherwise) marks the end; the top flag bit marks a data track.
      guard number != 170, number != 255, flags & 0x80 == 0, let start = starts[1], start < UInt64(Int64.max) else {
        continue
      }
      sheet.tracks.append(
        CueSheet.Track(
          number: Int(number), file: "", title: nil, performer: nil, start: .samples(Int64(start)),
          pregap: starts[0].flatMap { $0 < UInt64(Int64.max) ? CueSheet.Position.samples(Int64($0)) : nil }))
    }
    return isAlbum(sheet.tracks) ? sheet : nil
  }

  /// Whether `tracks` cut one file into tracks: two or more (a sheet of one track would only hide the file's
  /// own title), starting in increasing order, as the tracks of one file must.
  private static func isAlbum(_ tracks: [CueSheet.Track]) -> Bool {
    let starts = tracks.map { $0.start.frame(sampleRate: 44_100) }
    return starts.count >= 2 && zip(starts, starts.dropFirst()).allSatisfy { $0 < $1 }
  }

  /// Reads big-endian numbers from bytes, refusing to read past their end.
  private struct BigEndianReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func skip(_ count: Int) -> Bool {
      guard count <= bytes.count - offset else { return false }
      offset += count
      return true
    }

    mutating func u8() -> UInt8? {
      guard offset < bytes.count else { return nil }
      defer { offset += 1 }
      return bytes[offset]
    }

    mutating func u64() -> UInt64? {
      guard 8 <= bytes.count - offset else { return nil }
      defer { offset += 8 }
      return bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
  }
}
