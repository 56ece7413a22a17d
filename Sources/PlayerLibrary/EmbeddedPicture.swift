import Glibc
import PlayerCore

/// A picture stored inside an audio file: FLAC's `PICTURE` block, ID3v2's `APIC`/`PIC` frame (MP3, and the
/// ID3 tags some FLAC and WAV files carry in front), MP4's `covr` item (M4A), or Ogg Vorbis and Opus's
/// `METADATA_BLOCK_PICTURE` comment (``OggPicture``). The front cover wins when the file says which picture is
/// which; otherwise the first.
///
/// Every length in a tag is checked against what is there: a damaged or hostile tag gives no picture, never a
/// crash or a read past its end.
public struct EmbeddedPicture: Equatable, Sendable {
  /// The image file's bytes.
  public var bytes: [UInt8]
  /// `jpg`, `png`, `webp` or `gif`, from the bytes' own signature (not from the tag's claim).
  public var fileExtension: String

  /// Largest tag or picture read: cover scans reach a few MB; a 16 MB "picture" is a broken length.
  static let largest = 16 << 20

  /// The picture in the file at `path`; nil when it has none that is an image, or cannot be read.
  public static func read(atPath path: String) -> EmbeddedPicture? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG,
      let head = try? MP4File.read(fd, at: 0, count: 12), head.count == 12
    else { return nil }
    if head.starts(with: Array("fLaC".utf8)) { return fromFLAC(fd) }
    if head.starts(with: Array("OggS".utf8)) { return OggPicture.read(fd) }
    if head.starts(with: Array("ID3".utf8)) {
      let size = ID3Tag.syncsafe(head[6..<10])
      guard size <= largest, let tag = try? MP4File.read(fd, at: 0, count: 10 + size) else { return nil }
      return fromID3(tag)
    }
    if head[4..<8].elementsEqual("ftyp".utf8), let file = try? MP4File(descriptor: fd, size: Int64(st.st_size)) {
      return fromMP4(moov: file.moov)
    }
    return nil
  }

  /// An image from `bytes` when they start with a JPEG, PNG, WebP or GIF signature.
  init?(image bytes: [UInt8]) {
    let signatures: [(String, [UInt8])] = [
      ("jpg", [0xFF, 0xD8, 0xFF]), ("png", [0x89, 0x50, 0x4E, 0x47]), ("gif", Array("GIF8".utf8)),
    ]
    if let match = signatures.first(where: { bytes.starts(with: $0.1) }) {
      fileExtension = match.0
    } else if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) {
      fileExtension = "webp"
    } else {
      return nil
    }
    self.bytes = bytes
  }

  // MARK: - FLAC

  /// The `PICTURE` blocks among the metadata blocks after `fLaC`: type, MIME type, description, four
  /// numbers about the image, then its bytes.
  static func fromFLAC(_ fd: Int32) -> EmbeddedPicture? {
    var first: EmbeddedPicture?
    for body in FLACMetadata.bodies(of: .picture, fd) {
      guard let (type, picture) = flacPicture(MP4Bytes(body)) else { continue }
      if type == 3 { return picture }
      first = first ?? picture
    }
    return first
  }

  /// One `PICTURE` block's picture type and image (the same layout Ogg files carry in base64).
  static func flacPicture(_ block: MP4Bytes) -> (type: UInt32, EmbeddedPicture)? {
    var reader = block
    guard let type = try? reader.u32(), let mime = try? reader.u32(), (try? reader.skip(Int(mime))) != nil,
      let description = try? reader.u32(), (try? reader.skip(Int(description))) != nil,
      (try? reader.skip(16)) != nil, let length = try? reader.u32(), let bytes = try? reader.array(Int(length)),
      let picture = EmbeddedPicture(image: bytes)
    else { return nil }
    return (type, picture)
  }

  // MARK: - ID3v2

  /// The pictures of a whole ID3v2.2, 2.3 or 2.4 tag (`tag` starts with its 10-byte header).
  static func fromID3(_ tag: [UInt8]) -> EmbeddedPicture? {
    guard var id3 = ID3Tag(tag) else { return nil }
    var first: EmbeddedPicture?
    while let frame = id3.nextFrame() {
      guard frame.isPicture, let (type, picture) = id3Picture(frame.content, legacy: id3.version == 2) else { continue }
      if type == 3 { return picture }
      first = first ?? picture
    }
    return first
  }

  /// An `APIC` frame (2.3, 2.4: text encoding, MIME type, picture type, description, image) or a `PIC` frame
  /// (2.2: a three-letter format instead of the MIME type).
  static func id3Picture(_ content: MP4Bytes, legacy: Bool) -> (type: UInt8, EmbeddedPicture)? {
    var reader = content
    guard let encoding = try? reader.u8() else { return nil }
    if legacy {
      guard (try? reader.skip(3)) != nil else { return nil }
    } else {
      guard skipTerminated(&reader, wide: false) else { return nil }
    }
    guard let type = try? reader.u8(), skipTerminated(&reader, wide: encoding == 1 || encoding == 2),
      let bytes = try? reader.array(reader.remaining), let picture = EmbeddedPicture(image: bytes)
    else { return nil }
    return (type, picture)
  }

  /// Moves past a string and its terminator: one zero byte, or two at an even distance for UTF-16.
  static func skipTerminated(_ reader: inout MP4Bytes, wide: Bool) -> Bool {
    let width = wide ? 2 : 1
    while reader.remaining >= width {
      guard let unit = try? reader.unsigned(width) else { return false }
      if unit == 0 { return true }
    }
    return false
  }

  // MARK: - MP4

  /// The `covr` item of `moov/udta/meta/ilst`: one `data` box per picture, the first wins.
  static func fromMP4(moov: MP4Box) -> EmbeddedPicture? {
    guard let items = MP4Tags.items(in: moov), let cover = items.first(where: { $0.type == MP4Box.type("covr") }),
      let bytes = MP4Tags.data(cover)
    else { return nil }
    return EmbeddedPicture(image: bytes)
  }
}
