import PlayerCore

/// An ID3v2.2, 2.3 or 2.4 tag, frame by frame: what the picture and ReplayGain readers take from MP3 files (and
/// the ID3 tags some FLAC and WAV files carry in front). Every length is checked against what is there.
struct ID3Tag {
  /// The tag's major version: 2, 3 or 4.
  let version: UInt8
  private var reader: MP4Bytes

  /// The tag in `tag`, which starts with its 10-byte header: unsynchronisation undone and the extended header
  /// skipped. Nil for another version or a header that does not fit.
  init?(_ tag: [UInt8]) {
    guard tag.count >= 10, (2...4).contains(tag[3]) else { return nil }
    version = tag[3]
    let flags = tag[5]
    // Before 2.4 the flag unsynchronises the whole tag; in 2.4 each frame says so.
    reader = MP4Bytes(version < 4 && flags & 0x80 != 0 ? Self.resynchronised(tag[10...]) : Array(tag[10...]))
    if flags & 0x40 != 0, version >= 3 {
      guard let size = try? reader.u32() else { return nil }
      let skip = version == 4 ? Self.syncsafe(size) - 4 : Int(size)
      guard (try? reader.skip(skip)) != nil else { return nil }
    }
  }

  /// One frame: its id, whether it holds a picture, and its content ready to read (empty for a compressed or
  /// encrypted frame, which is not read).
  struct Frame {
    var id: [UInt8]
    var isPicture: Bool
    var content: MP4Bytes
  }

  /// The next frame, moving past it; nil at the padding or the end.
  mutating func nextFrame() -> Frame? {
    let idLength = version == 2 ? 3 : 4
    guard reader.remaining > idLength * 2, let id = try? reader.array(idLength), id[0] != 0 else { return nil }
    let size: Int
    var flags: UInt16 = 0
    if version == 2 {
      guard let raw = try? reader.unsigned(3) else { return nil }
      size = Int(raw)
    } else {
      guard let raw = try? reader.u32(), let frameFlags = try? reader.u16() else { return nil }
      size = version == 4 ? Self.syncsafe(raw) : Int(raw)
      flags = frameFlags
    }
    guard var content = try? reader.take(size) else { return nil }
    let isPicture = id.elementsEqual((version == 2 ? "PIC" : "APIC").utf8)
    // Compressed or encrypted frames are not read (2.3: 0x80, 0x40; 2.4: 0x08, 0x04).
    let hidden: UInt16 = version == 4 ? 0x000C : 0x00C0
    guard flags & hidden == 0 else { return Frame(id: id, isPicture: false, content: MP4Bytes([])) }
    if version == 4 {
      if flags & 0x0001 != 0, (try? content.skip(4)) == nil {
        return Frame(id: id, isPicture: false, content: MP4Bytes([]))
      }
      if flags & 0x0002 != 0 {
        content = MP4Bytes(Self.resynchronised(content.bytes[content.offset..<content.end]))
      }
    }
    return Frame(id: id, isPicture: isPicture, content: content)
  }

  /// A 28-bit "syncsafe" number: four bytes of seven bits each.
  static func syncsafe<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int {
    bytes.reduce(0) { $0 << 7 | Int($1 & 0x7F) }
  }

  /// ``syncsafe(_:)`` of a value read as four big-endian bytes.
  static func syncsafe(_ value: UInt32) -> Int {
    syncsafe([24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
  }

  /// Undoes ID3's unsynchronisation: `FF 00` stands for `FF`.
  static func resynchronised(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var previous: UInt8 = 0
    for byte in bytes {
      if !(previous == 0xFF && byte == 0) { out.append(byte) }
      previous = byte
    }
    return out
  }
}
