/// `file://` URLs for MPRIS: `xesam:url` in the metadata, and the argument of `OpenUri`.
public enum FileURL {
  /// The `file://` URL of `path`, made absolute against `directory` when it is relative, with every byte other
  /// than an unreserved character (RFC 3986: letters, digits, `-._~`) or `/` percent-encoded, so that spaces,
  /// `#`, `?`, `%` and non-ASCII names survive a round trip through any URL parser.
  ///
  /// ```swift
  /// FileURL.encode("music/A b.flac", relativeTo: "/home/me")  // "file:///home/me/music/A%20b.flac"
  /// ```
  public static func encode(_ path: String, relativeTo directory: String) -> String {
    let absolute: String
    if path.hasPrefix("/") {
      absolute = path
    } else {
      absolute = directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }
    var url = "file://"
    for byte in absolute.utf8 {
      if isUnreserved(byte) || byte == UInt8(ascii: "/") {
        url.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        url += "%" + hexDigit(byte >> 4) + hexDigit(byte & 0xF)
      }
    }
    return url
  }

  /// The path a `file://` URL names, or nil when `url` is not a local file URL (another scheme, a remote host,
  /// a bad escape, or bytes that are not UTF-8). Accepts `file:///path` and `file://localhost/path`; a query or
  /// fragment is not part of the path and is dropped.
  public static func path(from url: String) -> String? {
    let scheme = "file://"
    guard url.count > scheme.count, url.prefix(scheme.count).lowercased() == scheme else { return nil }
    var rest = Substring(url.dropFirst(scheme.count))
    if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
    guard rest.hasPrefix("/") else { return nil }
    if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
    var bytes: [UInt8] = []
    var utf8 = rest.utf8.makeIterator()
    while let byte = utf8.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else { return nil }
      bytes.append(high << 4 | low)
    }
    guard !bytes.contains(0) else { return nil }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "~"):
      true
    default: false
    }
  }

  private static func hexDigit(_ nibble: UInt8) -> String {
    String(Unicode.Scalar(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10))
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
