/// How many terminal columns text takes, so that a line can be cut to the terminal's width without
/// wrapping: East Asian wide and fullwidth characters and emoji take two, combining marks and other
/// zero-width characters none. Control characters are replaced (a tag must not move the cursor).
public enum DisplayWidth {
  /// The columns `text` takes once ``sanitized(_:)``.
  public static func columns(of text: String) -> Int {
    text.reduce(0) { $0 + columns(of: $1) }
  }

  /// The columns one character (grapheme cluster) takes: 0, 1 or 2.
  public static func columns(of character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    // An emoji shown as such: by default, or asked for with the variation selector U+FE0F.
    if first.properties.isEmojiPresentation
      || (first.properties.isEmoji && scalars.contains("\u{FE0F}") && first.value > 0xFF)
    {
      return 2
    }
    return columns(of: first)
  }

  /// The columns of one scalar that starts a cluster.
  static func columns(of scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value < 0x20 || (0x7F..<0xA0).contains(value) { return 1 }  // replaced by sanitized(_:)
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if value == 0x200B || (0x1160...0x11FF).contains(value) { return 0 }
    return isWide(value) ? 2 : 1
  }

  /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode's EastAsianWidth.txt, merged.
  private static func isWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
      0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
      0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD,
      0x30000...0x3FFFD:
      return true
    default:
      return false
    }
  }

  /// `text` with control characters (escape sequences' start among them) replaced by U+FFFD.
  public static func sanitized(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars { result.append(isControl(scalar) ? "\u{FFFD}" : scalar) }
    return String(result)
  }

  /// `text` cut to at most `width` columns, ending in "…" when something was cut; sanitized first.
  public static func fitted(_ text: String, to width: Int) -> String {
    let clean = sanitized(text)
    guard width > 0 else { return "" }
    guard columns(of: clean) > width else { return clean }
    var result = ""
    var used = 0
    for character in clean {
      let needed = columns(of: character)
      if used + needed > width - 1 { break }
      result.append(character)
      used += needed
    }
    return result + "…"
  }

  /// `text` cut from its start to at most `width` columns, beginning with "…" when something was cut (a path
  /// whose end, the file's name, says the most); sanitized first.
  public static func fittedFromTheStart(_ text: String, to width: Int) -> String {
    let clean = sanitized(text)
    guard width > 0 else { return "" }
    guard columns(of: clean) > width else { return clean }
    var kept: [Character] = []
    var used = 0
    for character in clean.reversed() {
      let needed = columns(of: character)
      if used + needed > width - 1 { break }
      kept.append(character)
      used += needed
    }
    return "…" + String(kept.reversed())
  }

  /// `text` fitted to `width` and padded with spaces to exactly `width` columns.
  public static func padded(_ text: String, to width: Int) -> String {
    let fitted = fitted(text, to: width)
    return fitted + String(repeating: " ", count: max(0, width - columns(of: fitted)))
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
  }
}
