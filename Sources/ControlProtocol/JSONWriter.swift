/// Writes compact JSON text field by field, for the lines the control socket sends.
///
/// The lines are written by hand rather than through `Encodable` because of what that costs where it matters:
/// the server answers each command after the caches have gone cold, and there Foundation's `JSONEncoder`
/// took about 100 µs per reply, and even a minimal `Encoder` about 90 µs (generic containers, existential
/// encoders, coding paths and a dictionary per object), a sixth of the whole acknowledgement. Writing the
/// fields directly takes a few microseconds. The `Codable` conformances stay the definition of the format:
/// a property test requires every line written here to be byte for byte what `JSONEncoder` writes from them
/// with sorted keys (JSONWriterTests), so the callers write their keys in sorted order.
package struct JSONWriter {
  /// The UTF-8 written so far.
  package private(set) var bytes: [UInt8] = []
  /// No member has been written yet in the innermost open object or array.
  private var first = true

  package init() {
    bytes.reserveCapacity(512)
  }

  /// The text written so far.
  package var text: String { String(decoding: bytes, as: UTF8.self) }

  private mutating func append(_ ascii: StaticString) {
    ascii.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// Ends the line.
  package mutating func newline() {
    append("\n")
  }

  /// Writes an object whose members `body` writes.
  package mutating func object(_ body: (inout JSONWriter) throws -> Void) rethrows {
    append("{")
    let outer = first
    first = true
    try body(&self)
    first = outer
    append("}")
  }

  /// Writes `"key":` (after a comma unless it is the first member).
  package mutating func key(_ key: StaticString) {
    if !first { append(",") }
    first = false
    append("\"")
    append(key)
    append("\":")
  }

  package mutating func field(_ key: StaticString, _ value: String) {
    self.key(key)
    string(value)
  }

  package mutating func field(_ key: StaticString, _ value: some BinaryInteger) {
    self.key(key)
    if value < 0 { append("-") }
    digits(of: UInt64(value.magnitude))
  }

  /// Decimal digits written straight into the bytes: `String(value)` goes through the generic
  /// `BinaryInteger` description and allocates a string per number (the largest part of writing a reply,
  /// profiled cold on the socket path).
  private mutating func digits(of value: UInt64) {
    var magnitude = value
    // The 20 digits of a UInt64 at most, least significant first.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var count = 0
      repeat {
        digits[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
        count += 1
      } while magnitude > 0
      for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[index]) }
    }
  }

  package mutating func field(_ key: StaticString, _ value: Double) throws {
    self.key(key)
    try number(value)
  }

  package mutating func field(_ key: StaticString, _ value: Bool) {
    self.key(key)
    append(value ? "true" : "false")
  }

  package mutating func nullField(_ key: StaticString) {
    self.key(key)
    append("null")
  }

  package mutating func field(_ key: StaticString, object body: (inout JSONWriter) throws -> Void) rethrows {
    self.key(key)
    try object(body)
  }

  /// Writes `"key": [...]`; `afterEach` runs after each element (to hand on what is written so far).
  package mutating func field(
    _ key: StaticString, strings: some Collection<String>, afterEach: (inout JSONWriter) -> Void = { _ in }
  ) {
    self.key(key)
    append("[")
    var separator = false
    for element in strings {
      if separator { append(",") }
      separator = true
      string(element)
      afterEach(&self)
    }
    append("]")
  }

  /// The bytes written so far, leaving the writer empty in the same place in the text.
  package mutating func take() -> [UInt8] {
    defer { bytes.removeAll(keepingCapacity: true) }
    return bytes
  }

  /// A quoted string with what JSON requires escaped (quote, backslash, control characters) and nothing
  /// else: slashes and non-ASCII characters are written as they are, as `.withoutEscapingSlashes` does.
  package mutating func string(_ value: String) {
    append("\"")
    // Most strings need no escape at all: then they are copied in one go.
    guard value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
      bytes.append(contentsOf: value.utf8)
      append("\"")
      return
    }
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): append("\\\"")
      case UInt8(ascii: "\\"): append("\\\\")
      case UInt8(ascii: "\n"): append("\\n")
      case UInt8(ascii: "\r"): append("\\r")
      case UInt8(ascii: "\t"): append("\\t")
      case 0x08: append("\\b")
      case 0x0C: append("\\f")
      case ..<0x20:
        let digits: StaticString = "0123456789abcdef"
        append("\\u00")
        digits.withUTF8Buffer { hex in
          bytes.append(hex[Int(byte >> 4)])
          bytes.append(hex[Int(byte & 0xF)])
        }
      default: bytes.append(byte)
      }
    }
    append("\"")
  }

  /// A finite number as JSONEncoder writes it: integral values without a fraction (`3`, not `3.0`).
  /// Throws for NaN and the infinities, which JSON cannot express.
  package mutating func number(_ value: Double) throws {
    guard value.isFinite else { throw JSONWriterError.notFinite(value) }
    let description = value.description
    bytes.append(contentsOf: description.hasSuffix(".0") ? description.utf8.dropLast(2) : description.utf8[...])
  }
}

/// A value JSON cannot express.
enum JSONWriterError: Error {
  case notFinite(Double)
}
