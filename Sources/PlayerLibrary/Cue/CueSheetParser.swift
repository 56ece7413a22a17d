/// Reads a cue sheet's text into a ``CueSheet``.
///
/// Takes UTF-8 with or without a byte-order mark, UTF-16 with one, and falls back to Windows-1252 (Latin-1 with
/// quotes and dashes in 0x80–0x9F) for bytes that are not UTF-8: sheets written by older rippers. Understands `FILE`, `TRACK`, `INDEX`, `TITLE`, `PERFORMER` and
/// `REM DATE`; other commands (`FLAGS`, `ISRC`, `CATALOG`, `PREGAP`, other `REM`s) are passed over. A track
/// belongs to the file named before its `INDEX 01`, so the non-standard layout that puts a pregap at the end of
/// the previous file still reads. Lines it cannot take are listed in ``CueSheet/problems``; it never fails.
public enum CueSheetParser {
  /// Sheets larger than this are refused by the callers that read files: a sheet of 99 tracks is a few KB.
  public static let maximumBytes = 1 << 20

  /// The sheet `bytes` hold.
  public static func parse(_ bytes: [UInt8]) -> CueSheet {
    var reader = Reader()
    var number = 0
    for line in lines(of: text(of: bytes)) {
      number += 1
      reader.take(words(of: line), line: number)
    }
    reader.finishTrack()
    var sheet = reader.sheet
    // A track's own problem is found when the next one begins: in line order for a person.
    sheet.problems.sort { $0.line < $1.line }
    return sheet
  }

  /// The text of `bytes`: UTF-16 after its byte-order mark, UTF-8 without one, or Windows-1252 when they are
  /// not UTF-8.
  static func text(of bytes: [UInt8]) -> String {
    if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
      let little = bytes[0] == 0xFF
      let units = stride(from: 2, to: bytes.count - 1, by: 2).map { index in
        little
          ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8 : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
      }
      return String(decoding: units, as: UTF16.self)
    }
    let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...]
    if let utf8 = String(validating: body, as: UTF8.self) { return utf8 }
    var text = String.UnicodeScalarView()
    text.append(contentsOf: body.map(windows1252))
    return String(text)
  }

  /// Windows-1252's character for `byte`: Latin-1's, but for the printable characters it puts in 0x80–0x9F.
  static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
    guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
    let table: [UInt32] = [
      0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
      0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
      0x0153, 0x9D, 0x017E, 0x0178,
    ]
    return Unicode.Scalar(table[Int(byte) - 0x80]) ?? Unicode.Scalar(byte)
  }

  /// The lines of `text`, whatever ends them (`\n`, `\r\n` or `\r`).
  static func lines(of text: String) -> [Substring] {
    text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
  }

  /// The words of `line`: runs of non-blank characters, or text in double quotes (which may hold blanks).
  static func words(of line: Substring) -> [Substring] {
    var words: [Substring] = []
    var rest = line[...]
    while true {
      rest = rest.drop { $0 == " " || $0 == "\t" }
      guard let first = rest.first else { return words }
      if first == "\"" {
        let body = rest.dropFirst()
        let close = body.firstIndex(of: "\"") ?? body.endIndex
        words.append(body[..<close])
        rest = close == body.endIndex ? body[close...] : body[body.index(after: close)...]
      } else {
        let end = rest.firstIndex { $0 == " " || $0 == "\t" } ?? rest.endIndex
        words.append(rest[..<end])
        rest = rest[end...]
      }
    }
  }

  /// `mm:ss:ff` in CD frames; nil unless seconds are below 60 and frames below 75.
  static func time(_ word: Substring) -> Int? {
    let parts = word.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 5 && $0.allSatisfy(\.isASCII) }),
      let minutes = Int(parts[0]), let seconds = Int(parts[1]), let frames = Int(parts[2]),
      minutes >= 0, (0..<60).contains(seconds), (0..<CueSheet.framesPerSecond).contains(frames)
    else { return nil }
    return (minutes * 60 + seconds) * CueSheet.framesPerSecond + frames
  }

  /// The sheet so far, and the track being read.
  private struct Reader {
    var sheet = CueSheet()
    var file: String?
    /// The track being read: its number, the line of its `TRACK`, and what was read of it so far.
    var track: (number: Int, line: Int, title: String?, performer: String?, pregap: Int?, start: Int?, file: String?)?
    /// Within a track that is passed over (a data track, or a `TRACK` line that could not be read): its lines
    /// are not the album's and not a problem of their own.
    var passingOver = false

    mutating func problem(_ line: Int, _ reason: String) {
      sheet.problems.append(CueSheet.Problem(line: line, reason: reason))
    }

    mutating func take(_ words: [Substring], line: Int) {
      guard let command = words.first?.uppercased() else { return }
      let argument = words.count > 1 ? String(words[1]) : nil
      switch command {
      case "FILE":
        guard let argument, !argument.isEmpty else { return problem(line, "FILE names no file") }
        file = argument
      case "TRACK":
        finishTrack()
        passingOver = true
        guard words.count >= 3, let number = Int(words[1]), (0...999).contains(number) else {
          return problem(line, "TRACK needs a number and a type")
        }
        // Data tracks of a mixed-mode disc hold no audio.
        guard words[2].uppercased() == "AUDIO" else { return }
        passingOver = false
        track = (number, line, nil, nil, nil, nil, nil)
      case _ where passingOver:
        break
      case "INDEX":
        guard track != nil else { return problem(line, "INDEX outside a TRACK") }
        guard words.count >= 3, let index = Int(words[1]), let at = CueSheetParser.time(words[2]) else {
          return problem(line, "INDEX needs a number and a time mm:ss:ff")
        }
        if index == 0 { track?.pregap = at }
        if index == 1 {
          guard let file else { return problem(line, "INDEX 01 before any FILE") }
          track?.start = at
          track?.file = file
        }
      case "TITLE":
        if track != nil { track?.title = argument } else { sheet.title = argument }
      case "PERFORMER":
        if track != nil { track?.performer = argument } else { sheet.performer = argument }
      case "REM":
        if argument?.uppercased() == "DATE", words.count > 2 { sheet.date = String(words[2]) }
      default:
        break
      }
    }

    /// Adds the track being read, if it has a start that follows the previous track's in the same file.
    mutating func finishTrack() {
      guard let track else { return }
      self.track = nil
      guard let start = track.start, let file = track.file else {
        return problem(track.line, "TRACK \(track.number) has no INDEX 01")
      }
      if let previous = sheet.tracks.last, previous.file == file, case .cdFrames(let before) = previous.start,
        before >= start
      {
        return problem(track.line, "TRACK \(track.number) starts before the track it follows")
      }
      sheet.tracks.append(
        CueSheet.Track(
          number: track.number, file: file, title: track.title, performer: track.performer,
          start: .cdFrames(start), pregap: track.pregap.map(CueSheet.Position.cdFrames)))
    }
  }
}
