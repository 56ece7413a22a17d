/// Why an MP4 file's structure could not be read; the text says which box and what was wrong.
struct MP4ParseError: Error, Equatable {
  /// What was wrong, for the decoder's error message.
  let reason: String
}

/// Big-endian reads over part of a byte array, each bounds-checked: a box that claims more than it holds throws
/// rather than reading past it.
struct MP4Bytes {
  /// The whole array the reads are in.
  let bytes: [UInt8]
  /// The next byte to read.
  private(set) var offset: Int
  /// One past the last byte this reader may read.
  let end: Int

  /// A reader over `bytes[start..<end]`.
  init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
    self.bytes = bytes
    offset = start
    self.end = end ?? bytes.count
  }

  /// Bytes left to read.
  var remaining: Int { end - offset }

  /// Moves past `count` bytes.
  mutating func skip(_ count: Int) throws(MP4ParseError) {
    guard count >= 0, count <= remaining else { throw MP4ParseError(reason: "a box ends early") }
    offset += count
  }

  /// The next `count` bytes, as a reader of their own; this one moves past them.
  mutating func take(_ count: Int) throws(MP4ParseError) -> MP4Bytes {
    let start = offset
    try skip(count)
    return MP4Bytes(bytes, from: start, to: start + count)
  }

  /// The next `count` bytes, copied.
  mutating func array(_ count: Int) throws(MP4ParseError) -> [UInt8] {
    let part = try take(count)
    return Array(bytes[part.offset..<part.end])
  }

  /// The next big-endian unsigned integer of `width` bytes (at most 8).
  mutating func unsigned(_ width: Int) throws(MP4ParseError) -> UInt64 {
    let start = offset
    try skip(width)
    var value: UInt64 = 0
    for byte in bytes[start..<(start + width)] { value = value << 8 | UInt64(byte) }
    return value
  }

  /// The next byte.
  mutating func u8() throws(MP4ParseError) -> UInt8 { UInt8(try unsigned(1)) }
  /// The next 16-bit value.
  mutating func u16() throws(MP4ParseError) -> UInt16 { UInt16(try unsigned(2)) }
  /// The next 32-bit value.
  mutating func u32() throws(MP4ParseError) -> UInt32 { UInt32(try unsigned(4)) }
  /// The next 64-bit value.
  mutating func u64() throws(MP4ParseError) -> UInt64 { try unsigned(8) }
}
