import Glibc
import PlayerCore

/// The picture of an Ogg Vorbis or Opus file: a `METADATA_BLOCK_PICTURE` comment, a FLAC `PICTURE` block in
/// base64, in the comment header (the stream's second packet), which a large picture spreads over many pages.
enum OggPicture {
  /// The picture in the open Ogg file `fd`; nil when its comment header has none.
  static func read(_ fd: Int32) -> EmbeddedPicture? {
    guard let header = commentHeader(fd) else { return nil }
    return fromCommentHeader(header)
  }

  /// The second packet of the first logical stream, read page by page (at most ``EmbeddedPicture/largest``).
  static func commentHeader(_ fd: Int32) -> [UInt8]? {
    var offset: Int64 = 0
    var packets: [[UInt8]] = [[]]
    var serial: ArraySlice<UInt8>?
    while packets.count < 3, packets.last!.count <= EmbeddedPicture.largest {
      guard let head = try? MP4File.read(fd, at: offset, count: 27), head.count == 27,
        head.starts(with: Array("OggS".utf8))
      else { return nil }
      let segments = Int(head[26])
      guard let table = try? MP4File.read(fd, at: offset + 27, count: segments), table.count == segments else {
        return nil
      }
      let size = table.reduce(0) { $0 + Int($1) }
      guard let body = try? MP4File.read(fd, at: offset + 27 + Int64(segments), count: size), body.count == size
      else { return nil }
      offset += 27 + Int64(segments) + Int64(size)
      // Pages of other streams (a multiplexed file) are not this stream's packets.
      if serial == nil { serial = head[14..<18] }
      guard head[14..<18] == serial else { continue }
      var start = 0
      for lace in table {
        packets[packets.count - 1] += body[start..<(start + Int(lace))]
        start += Int(lace)
        if lace < 255 { packets.append([]) }
      }
    }
    return packets.count >= 3 ? packets[1] : nil
  }

  /// The picture among the comments of a Vorbis (`\u{3}vorbis`) or Opus (`OpusTags`) comment header.
  static func fromCommentHeader(_ packet: [UInt8]) -> EmbeddedPicture? {
    let magic: Int
    if packet.starts(with: [3] + Array("vorbis".utf8)) {
      magic = 7
    } else if packet.starts(with: Array("OpusTags".utf8)) {
      magic = 8
    } else {
      return nil
    }
    var reader = LittleEndianReader(bytes: packet, offset: magic)
    guard let vendor = reader.u32(), reader.skip(Int(vendor)), let count = reader.u32() else { return nil }
    let key = Array("METADATA_BLOCK_PICTURE=".utf8)
    var first: EmbeddedPicture?
    for _ in 0..<count {
      guard let length = reader.u32(), let comment = reader.take(Int(length)) else { break }
      // Field names are ASCII, compared without case.
      guard comment.count > key.count, zip(comment, key).allSatisfy({ uppercased($0) == $1 }),
        let block = Base64.decode(comment.dropFirst(key.count)),
        let (type, picture) = EmbeddedPicture.flacPicture(MP4Bytes(block))
      else { continue }
      if type == 3 { return picture }
      first = first ?? picture
    }
    return first
  }

  private static func uppercased(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
  }

  /// Bounds-checked little-endian reads (Vorbis comments count in little-endian, unlike the rest).
  struct LittleEndianReader {
    let bytes: [UInt8]
    var offset: Int

    mutating func u32() -> UInt32? {
      guard let four = take(4) else { return nil }
      return four.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func skip(_ count: Int) -> Bool { take(count) != nil }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
      guard count >= 0, count <= bytes.count - offset else { return nil }
      defer { offset += count }
      return bytes[offset..<(offset + count)]
    }
  }
}

/// Standard base64 (RFC 4648), as Vorbis comments carry pictures; PlayerCore does not link Foundation.
enum Base64 {
  /// The bytes `text` encodes; nil when it holds anything but the alphabet and trailing `=` padding.
  static func decode<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(text.count / 4 * 3)
    var buffer: UInt32 = 0
    var bits = 0
    var padding = 0
    for byte in text {
      let value: UInt8
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
      case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
      case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
      case UInt8(ascii: "+"): value = 62
      case UInt8(ascii: "/"): value = 63
      case UInt8(ascii: "="):
        padding += 1
        continue
      default: return nil
      }
      guard padding == 0 else { return nil }
      buffer = buffer << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
      }
    }
    return padding <= 2 ? out : nil
  }
}
