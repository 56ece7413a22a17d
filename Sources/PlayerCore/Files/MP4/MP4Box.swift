/// One box (atom) of an MP4 file: its four-character type and its body.
package struct MP4Box {
  /// The type as a big-endian number (`moov` is 0x6D6F6F76).
  package let type: UInt32
  /// The box's content, after its header.
  package var body: MP4Bytes

  /// The type code of `name`, four characters of ISO 8859-1 (`©nam` starts with byte 0xA9).
  package static func type(_ name: String) -> UInt32 {
    let scalars = Array(name.unicodeScalars)
    precondition(scalars.count == 4 && scalars.allSatisfy { $0.value < 256 }, "not a box type: \(name)")
    return scalars.reduce(0) { $0 << 8 | $1.value }
  }

  /// The boxes that follow one another in `bytes` up to its end. A size of 0 means "to the end"; a size of 1
  /// is followed by a 64-bit size.
  package static func sequence(in bytes: MP4Bytes) throws(MP4ParseError) -> [MP4Box] {
    var reader = bytes
    var boxes: [MP4Box] = []
    while reader.remaining >= 8 {
      let start = reader.offset
      var size = Int(try reader.u32())
      let type = try reader.u32()
      if size == 1 {
        let large = try reader.u64()
        guard large <= UInt64(Int.max) else { throw MP4ParseError(reason: "a box claims \(large) bytes") }
        size = Int(large)
      } else if size == 0 {
        size = reader.end - start
      }
      let header = reader.offset - start
      guard size >= header else { throw MP4ParseError(reason: "a box is smaller than its header") }
      boxes.append(MP4Box(type: type, body: try reader.take(size - header)))
    }
    return boxes
  }

  /// The boxes inside this one.
  package func children() throws(MP4ParseError) -> [MP4Box] { try Self.sequence(in: body) }

  /// The first box inside this one of type `name`, or nil.
  package func child(_ name: String) throws(MP4ParseError) -> MP4Box? {
    let wanted = Self.type(name)
    return try children().first { $0.type == wanted }
  }

  /// The box at `path` below this one (`["mdia", "minf", "stbl"]`), or nil when any step is missing.
  package func descendant(_ path: [String]) throws(MP4ParseError) -> MP4Box? {
    var box = self
    for name in path {
      guard let next = try box.child(name) else { return nil }
      box = next
    }
    return box
  }
}
