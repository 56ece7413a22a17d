import PlayerCore

/// The metadata blocks of a FLAC file (after `fLaC`: a header byte whose top bit marks the last block and whose
/// low seven bits are the type, a 24-bit length, then the body), read from a descriptor.
enum FLACMetadata {
  /// Block types splay reads.
  enum BlockType: UInt8 {
    case vorbisComment = 4
    case cueSheet = 5
    case picture = 6
  }

  /// Where one block's body is.
  struct Block {
    /// Its type's number.
    var type: UInt8
    /// The body's offset in the file.
    var offset: Int64
    /// The body's length.
    var length: Int
  }

  /// The blocks of the stream whose `fLaC` is at `start`, in order: at most 128, stopping at the last one or at
  /// the first header that cannot be read.
  static func blocks(_ fd: Int32, at start: Int64 = 0) -> [Block] {
    var blocks: [Block] = []
    var offset = start + 4
    for _ in 0..<128 {
      guard let header = try? MP4File.read(fd, at: offset, count: 4), header.count == 4 else { break }
      let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
      blocks.append(Block(type: header[0] & 0x7F, offset: offset + 4, length: length))
      if header[0] & 0x80 != 0 { break }
      offset += 4 + Int64(length)
    }
    return blocks
  }

  /// The bodies of the blocks of `type`, in order, each no longer than `EmbeddedPicture.largest`: read as they
  /// are reached, so that a caller that stops at the first reads no more.
  static func bodies(of type: BlockType, _ fd: Int32, at start: Int64 = 0) -> some Sequence<[UInt8]> {
    blocks(fd, at: start).lazy.filter { $0.type == type.rawValue && $0.length <= EmbeddedPicture.largest }
      .compactMap { try? MP4File.read(fd, at: $0.offset, count: $0.length) }
  }
}
