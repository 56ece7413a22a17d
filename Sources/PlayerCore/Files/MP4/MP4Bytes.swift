/// Why an MP4 file's structure could not be read; the text says which box and what was wrong.
package struct MP4ParseError: Error, Equatable {
  /// What was wrong, for the decoder's error message.
  package let reason: String
}

/// Big-endian reads over part of a byte array, each bounds-checked: a box that claims more than it holds throws
/// rather than reading past it.
package struct MP4Bytes {
  /// The whole array the reads are in.
  package let bytes: [UInt8]
  /// The next byte to read.
  package private(set) var offset: Int
  /// One past the last byte this reader may read.
  package let end: Int

  /// A reader over `bytes[start..<end]`.
  package init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
    self.bytes = bytes
    offset = start
    self.end = end ?? bytes.count
  }

  /// Bytes left to read.
  package var remaining: Int { end - offset }

  /// Moves past `count` bytes.
  package mutating func skip(_ count: Int) throws(MP4ParseError) {
    guard count >= 0, count <= remaining else { throw MP4ParseError(reason: "a box ends early") }
    offset += count
  }

  /// The next `count` bytes, as a reader of their own; this one moves past them.
  package mutating func take(_ count: Int) throws(MP4ParseError) -> MP4Bytes {
    let start = offset
    try skip(count)
    return MP4Bytes(bytes, from: start, to: start + count)
  }

  /// The next `count` bytes, copied.
  package mutating func array(_ count: Int) throws(MP4ParseError) -> [UInt8] {
    let part = try take(count)
    return Array(bytes[part.offset..<part.end])
  }

  /// The next big-endian unsigned integer of `width` bytes (at most 8).
  package mutating func unsigned(_ width: Int) throws(MP4ParseError) -> UInt64 {
    let start = offset
    try skip(width)
    var value: UInt64 = 0
    for byte in bytes[start..<(start + width)] { value = value << 8 | UInt64(byte) }
    return value
  }

  /// The next byte.
  package mutating func u8() throws(MP4ParseError) -> UInt8 { UInt8(try unsigned(1)) }
  /// The next 16-bit value.
  package mutating func u16() throws(MP4ParseError) -> UInt16 { UInt16(try unsigned(2)) }
  /// The next 32-bit value.
  package mutating func u32() throws(MP4ParseError) -> UInt32 { UInt32(try unsigned(4)) }
  /// The next 64-bit value.
  package mutating func u64() throws(MP4ParseError) -> UInt64 { try unsigned(8) }
}
