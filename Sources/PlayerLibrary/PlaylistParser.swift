import PlayerCore

/// Reads M3U/M3U8 and PLS playlists into their entries, in order, with the line each came from.
///
/// Lenient where players are (a UTF-8 byte-order mark, CRLF or CR line ends, blank lines, `#EXTINF` and
/// other comments, Latin-1 text in an old `.m3u`), and exact where it matters: an entry is the whole line,
/// spaces included.
public enum PlaylistParser {
  /// A playlist's kind, from its file name.
  public enum Kind: Sendable, Equatable {
    case m3u
    case pls
  }

  /// One entry as written: a path (relative to the playlist's folder when not absolute) or a URL.
  public struct Entry: Sendable, Equatable {
    /// The 1-based line of the playlist that names it.
    public var line: Int
    /// What the line names.
    public var location: String
  }

  /// The kind of playlist `path` names by its extension (`.m3u`, `.m3u8`, `.pls`, any case), or nil.
  public static func kind(ofPath path: String) -> Kind? {
    switch PathExtension.lowercased(of: path) {
    case "m3u", "m3u8": return .m3u
    case "pls": return .pls
    default: return nil
    }
  }

  /// The entries of a playlist of `kind` whose contents are `bytes`.
  public static func entries(of bytes: [UInt8], kind: Kind) -> [Entry] {
    let lines = self.lines(of: bytes)
    switch kind {
    case .m3u: return m3uEntries(lines)
    case .pls: return plsEntries(lines)
    }
  }

  /// Text lines, numbered from 1: UTF-8 with an optional byte-order mark, or Latin-1 when not valid UTF-8.
  static func lines(of bytes: [UInt8]) -> [(number: Int, text: String)] {
    var body = bytes[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    let text =
      String(validating: body, as: UTF8.self) ?? String(String.UnicodeScalarView(body.map(Unicode.Scalar.init)))
    var result: [(Int, String)] = []
    var number = 0
    // "\r\n" is a single Character in Swift, so splitting on both separators handles CRLF as one line end.
    for line in text.split(
      omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
    {
      number += 1
      result.append((number, String(line)))
    }
    return result
  }

  private static func m3uEntries(_ lines: [(number: Int, text: String)]) -> [Entry] {
    lines.compactMap { line in
      let text = trimmed(line.text)
      guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
      return Entry(line: line.number, location: text)
    }
  }

  /// PLS: `FileN=location` lines, ordered by N (files in the wild are not always written in order).
  private static func plsEntries(_ lines: [(number: Int, text: String)]) -> [Entry] {
    var numbered: [(index: Int, entry: Entry)] = []
    for line in lines {
      let text = trimmed(line.text)
      guard text.lowercased().hasPrefix("file"), let equals = text.firstIndex(of: "=") else { continue }
      guard let index = Int(text[text.index(text.startIndex, offsetBy: 4)..<equals]) else { continue }
      let location = trimmed(String(text[text.index(after: equals)...]))
      guard !location.isEmpty else { continue }
      numbered.append((index, Entry(line: line.number, location: location)))
    }
    return numbered.enumerated().sorted { ($0.element.index, $0.offset) < ($1.element.index, $1.offset) }
      .map(\.element.entry)
  }

  /// Drops leading and trailing spaces and tabs (a file name may contain spaces, never at the line's ends in
  /// a playlist a person would write).
  private static func trimmed(_ text: String) -> String {
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = text.firstIndex(where: { !isBlank($0) }) else { return "" }
    let last = text.lastIndex(where: { !isBlank($0) })!
    return String(text[first...last])
  }
}
