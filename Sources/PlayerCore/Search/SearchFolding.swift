/// Text as a search compares it: lowercase, and without diacritics on Latin letters, so that `bjork` finds
/// "Björk" and `ECOLE` finds "école". Other scripts (CJK, Cyrillic, Greek) are kept, lowercased.
///
/// Made with the standard library alone: a precomposed letter is told by its Unicode name ("LATIN SMALL LETTER
/// O WITH DIAERESIS" is an `o`), and combining marks (a decomposed accent) are dropped. ASCII, most of what a
/// path holds, takes none of that.
public enum SearchFolding {
  /// `text` folded.
  public static func fold(_ text: String) -> String {
    if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
    var folded = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      if scalar.isASCII {
        folded.append(contentsOf: String(scalar).lowercased().unicodeScalars)
      } else if scalar.properties.generalCategory == .nonspacingMark {
        continue
      } else if let base = latinBase(of: scalar) {
        folded.append(base)
      } else {
        folded.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
      }
    }
    return String(folded)
  }

  /// The plain lowercase letter a precomposed Latin letter is made on (`ö` → `o`, `Ł` → `l`); nil for others.
  static func latinBase(of scalar: Unicode.Scalar) -> Unicode.Scalar? {
    guard let name = scalar.properties.name, name.hasPrefix("LATIN "), let with = name.firstRange(of: " WITH ")
    else { return nil }
    let head = name[..<with.lowerBound]
    guard let letter = head.firstRange(of: " LETTER ") else { return nil }
    let base = head[letter.upperBound...]
    guard base.count == 1, let scalar = base.unicodeScalars.first, ("A"..."Z").contains(scalar) else { return nil }
    return Unicode.Scalar(UInt8(ascii: "a") + UInt8(scalar.value) - UInt8(ascii: "A"))
  }
}
