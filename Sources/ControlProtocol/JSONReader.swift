/// A strict reader of one JSON text (RFC 8259), for the requests of the control socket.
///
/// Why not Foundation's `JSONDecoder`: on the served player it took about 100 µs to decode a request once the
/// caches had gone cold between two commands, a tenth of the acknowledgement; this reader takes a few. It is
/// stricter than `JSONDecoder`, never looser: no trailing commas, no raw control characters, invalid escapes
/// or invalid UTF-8 in any string (used or not), nesting at most ``maximumDepth`` deep. Whatever it accepts
/// means what `JSONDecoder` makes of it; the control-request fuzz target checks exactly that against the
/// Foundation-based reading. Numbers keep their text; the request reader decides what they may be.
enum JSONValue: Equatable {
  /// Members in the order written; a repeated key keeps its first value (as `JSONDecoder` does).
  case object([(key: String, value: JSONValue)])
  case array([JSONValue])
  case string(String)
  /// The number as written (already checked against JSON's grammar).
  case number(String)
  case bool(Bool)
  case null

  static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.object(let x), .object(let y)):
      x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    case (.array(let x), .array(let y)): x == y
    case (.string(let x), .string(let y)): x == y
    case (.number(let x), .number(let y)): x == y
    case (.bool(let x), .bool(let y)): x == y
    case (.null, .null): true
    default: false
    }
  }

  /// The first member named `key` of an object.
  subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.key == key }?.value
  }
}

/// Reads JSON from UTF-8 bytes; see ``JSONValue``.
struct JSONReader {
  /// Deeper nesting is refused (as `JSONDecoder` refuses beyond 512): the reader recurses.
  static let maximumDepth = 512

  private let bytes: [UInt8]
  private var index = 0

  /// The value `bytes` hold, or nil when they are not exactly one JSON text (surrounding white space and a
  /// UTF-8 byte-order mark allowed).
  static func read(_ bytes: some Collection<UInt8>) -> JSONValue? {
    var reader = JSONReader(bytes: Array(bytes))
    if reader.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
    guard let value = reader.value(depth: 0) else { return nil }
    reader.skipSpace()
    return reader.index == reader.bytes.count ? value : nil
  }

  private init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipSpace() {
    while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
  }

  private mutating func value(depth: Int) -> JSONValue? {
    skipSpace()
    guard let byte = current else { return nil }
    switch byte {
    case UInt8(ascii: "{"): return object(depth: depth + 1)
    case UInt8(ascii: "["): return array(depth: depth + 1)
    case UInt8(ascii: "\""): return string().map(JSONValue.string)
    case UInt8(ascii: "t"): return literal("true", .bool(true))
    case UInt8(ascii: "f"): return literal("false", .bool(false))
    case UInt8(ascii: "n"): return literal("null", .null)
    default: return number()
    }
  }

  private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
    let matches = word.withUTF8Buffer { word in
      bytes.count - index >= word.count && bytes[index..<index + word.count].elementsEqual(word)
    }
    guard matches else { return nil }
    index += word.utf8CodeUnitCount
    return value
  }

  private mutating func object(depth: Int) -> JSONValue? {
    guard depth <= Self.maximumDepth else { return nil }
    index += 1
    var members: [(key: String, value: JSONValue)] = []
    skipSpace()
    if current == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipSpace()
      guard current == UInt8(ascii: "\""), let key = string() else { return nil }
      skipSpace()
      guard current == UInt8(ascii: ":") else { return nil }
      index += 1
      guard let value = value(depth: depth) else { return nil }
      if !members.contains(where: { $0.key == key }) { members.append((key, value)) }
      skipSpace()
      switch current {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return .object(members)
      default: return nil
      }
    }
  }

  private mutating func array(depth: Int) -> JSONValue? {
    guard depth <= Self.maximumDepth else { return nil }
    index += 1
    var elements: [JSONValue] = []
    skipSpace()
    if current == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      guard let element = value(depth: depth) else { return nil }
      elements.append(element)
      skipSpace()
      switch current {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return .array(elements)
      default: return nil
      }
    }
  }

  /// A string from its opening quote: escapes decoded, UTF-8 validated; nil if anything is wrong.
  private mutating func string() -> String? {
    index += 1
    // Most strings have no escape: they are validated in place, without being copied byte by byte first.
    let start = index
    while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 { index += 1 }
    if current == UInt8(ascii: "\"") {
      index += 1
      return String(validating: bytes[start..<index - 1], as: UTF8.self)
    }
    var utf8 = Array(bytes[start..<index])
    while let byte = current {
      index += 1
      switch byte {
      case UInt8(ascii: "\""):
        return String(validating: utf8, as: UTF8.self)
      case UInt8(ascii: "\\"):
        guard let escaped = current else { return nil }
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
          guard let scalar = unicodeEscape() else { return nil }
          utf8.append(contentsOf: String(Character(scalar)).utf8)
        default: return nil
        }
      case ..<0x20: return nil
      default: utf8.append(byte)
      }
    }
    return nil
  }

  /// The scalar of `\uXXXX` (after the `u`), joining a surrogate pair; nil for a lone surrogate.
  private mutating func unicodeEscape() -> Unicode.Scalar? {
    guard let high = hex4() else { return nil }
    if (0xD800..<0xDC00).contains(high) {
      guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
      else { return nil }
      index += 2
      guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
      return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }
    return Unicode.Scalar(high)
  }

  private mutating func hex4() -> UInt32? {
    guard bytes.count - index >= 4 else { return nil }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, kept as text.
  private mutating func number() -> JSONValue? {
    let start = index
    if current == UInt8(ascii: "-") { index += 1 }
    guard let first = current, isDigit(first) else { return nil }
    index += 1
    if first != UInt8(ascii: "0") { skipDigits() }
    if current == UInt8(ascii: ".") {
      index += 1
      guard let digit = current, isDigit(digit) else { return nil }
      skipDigits()
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      index += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
      guard let digit = current, isDigit(digit) else { return nil }
      skipDigits()
    }
    return .number(String(decoding: bytes[start..<index], as: UTF8.self))
  }

  private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  private mutating func skipDigits() {
    while let byte = current, isDigit(byte) { index += 1 }
  }
}
