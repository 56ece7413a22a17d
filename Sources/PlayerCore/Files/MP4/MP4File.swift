import Glibc

/// The structure of an MP4/M4A file: its `moov` box read into memory, the file's size, and the descriptor the
/// samples are read through.
package struct MP4File {
  /// The movie box.
  package let moov: MP4Box
  /// The file's size in bytes.
  package let size: Int64

  /// Largest `moov` read: a 10-hour AAC track's index is about 3 MB.
  package static let largestIndex = 64 << 20

  /// Reads the top-level boxes of the open file `descriptor` of `size` bytes. Throws when the file does not
  /// start with `ftyp` (not MP4), is fragmented (`moof`: its samples are indexed elsewhere), or has no `moov`.
  package init(descriptor: Int32, size: Int64) throws(MP4ParseError) {
    self.size = size
    var offset: Int64 = 0
    var found: MP4Box?
    var first = true
    while offset + 8 <= size {
      var header = try Self.read(descriptor, at: offset, count: 16)
      var reader = MP4Bytes(header, to: min(header.count, Int(min(size - offset, 16))))
      var length = Int64(try reader.u32())
      let type = try reader.u32()
      if length == 1 { length = Int64(bitPattern: try reader.u64()) } else if length == 0 { length = size - offset }
      let headerSize = Int64(reader.offset)
      guard length >= headerSize else { throw MP4ParseError(reason: "a top-level box is smaller than its header") }
      // A box that runs past the end of the file (a truncated `mdat`) is the last one there is.
      guard length <= size - offset else { break }
      if first, type != MP4Box.type("ftyp") { throw MP4ParseError(reason: "not an MP4 file") }
      first = false
      if type == MP4Box.type("moof") { throw MP4ParseError(reason: "fragmented MP4") }
      if type == MP4Box.type("moov") {
        let bodySize = length - headerSize
        guard bodySize <= Self.largestIndex else {
          throw MP4ParseError(reason: "moov is \(bodySize) bytes")
        }
        header = try Self.read(descriptor, at: offset + headerSize, count: Int(bodySize))
        found = MP4Box(type: type, body: MP4Bytes(header))
      }
      offset += length
    }
    guard let found else { throw MP4ParseError(reason: "no moov box (the file's index is missing)") }
    moov = found
  }

  /// `count` bytes at `offset`, fewer at the end of the file.
  package static func read(_ descriptor: Int32, at offset: Int64, count: Int) throws(MP4ParseError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let got = bytes.withUnsafeMutableBytes { raw in
        pread(descriptor, raw.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
      }
      if got < 0, errno == EINTR { continue }
      guard got >= 0 else { throw MP4ParseError(reason: "cannot read: \(String(cString: strerror(errno)))") }
      if got == 0 { break }
      filled += got
    }
    bytes.removeLast(count - filled)
    return bytes
  }
}
