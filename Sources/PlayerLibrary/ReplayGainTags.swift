import Glibc
import PlayerCore

/// The loudness tags of an audio file: ReplayGain's gains (dB against its reference, −18 LUFS) and peaks (linear,
/// 1 = full scale), from FLAC and Ogg Vorbis comments, ID3v2 `TXXX` frames (MP3), MP4 `----:com.apple.iTunes`
/// items (M4A), and Opus's `R128_TRACK_GAIN`/`R128_ALBUM_GAIN` (Q7.8 dB against −23 LUFS: 5 dB more makes them
/// ReplayGain's). A tag that does not parse is left out, never an error: the file plays without it.
public struct ReplayGainTags: Equatable, Sendable {
  /// `REPLAYGAIN_TRACK_GAIN`, or `R128_TRACK_GAIN` + 5 dB.
  public var trackGain: Double?
  /// `REPLAYGAIN_ALBUM_GAIN`, or `R128_ALBUM_GAIN` + 5 dB.
  public var albumGain: Double?
  /// `REPLAYGAIN_TRACK_PEAK`.
  public var trackPeak: Double?
  /// `REPLAYGAIN_ALBUM_PEAK`.
  public var albumPeak: Double?

  /// Tags with the given values.
  public init(trackGain: Double? = nil, albumGain: Double? = nil, trackPeak: Double? = nil, albumPeak: Double? = nil) {
    self.trackGain = trackGain
    self.albumGain = albumGain
    self.trackPeak = trackPeak
    self.albumPeak = albumPeak
  }

  /// The tags of the file at `path`; empty when it has none or cannot be read.
  public static func read(atPath path: String) -> ReplayGainTags {
    // A stream is no file: it has no tags to read ahead.
    if StreamURL.isStream(path) { return ReplayGainTags() }
    // A cue track's gains are its file's.
    if let track = CueTrackPath(path), let file = CueSheetFile.audioFile(of: track) { return read(atPath: file) }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return ReplayGainTags() }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG,
      let head = try? MP4File.read(fd, at: 0, count: 12), head.count == 12
    else { return ReplayGainTags() }
    if head.starts(with: Array("fLaC".utf8)) { return fromComments(flacComments(fd)) }
    if head.starts(with: Array("OggS".utf8)), let packet = OggPicture.commentHeader(fd) {
      return fromComments(oggComments(packet))
    }
    if head.starts(with: Array("ID3".utf8)) {
      let size = ID3Tag.syncsafe(head[6..<10])
      guard size <= EmbeddedPicture.largest, let tag = try? MP4File.read(fd, at: 0, count: 10 + size) else {
        return ReplayGainTags()
      }
      let tags = fromComments(id3Comments(tag))
      // A FLAC file some taggers put an ID3 tag in front of keeps its gains in its own comments, after it
      // (and after the tag's footer, when its flag says there is one).
      let end = Int64(10 + size + (head[5] & 0x10 != 0 ? 10 : 0))
      guard tags == ReplayGainTags(), let magic = try? MP4File.read(fd, at: end, count: 4),
        magic.elementsEqual("fLaC".utf8)
      else { return tags }
      return fromComments(flacComments(fd, at: end))
    }
    if head[4..<8].elementsEqual("ftyp".utf8), let file = try? MP4File(descriptor: fd, size: Int64(st.st_size)) {
      return fromComments(mp4Comments(moov: file.moov))
    }
    return ReplayGainTags()
  }

  /// The tags among `comments` (name, value), names compared without case.
  static func fromComments(_ comments: [(name: String, value: String)]) -> ReplayGainTags {
    var tags = ReplayGainTags()
    for (name, value) in comments {
      switch name.uppercased() {
      case "REPLAYGAIN_TRACK_GAIN": tags.trackGain = tags.trackGain ?? decibels(value)
      case "REPLAYGAIN_ALBUM_GAIN": tags.albumGain = tags.albumGain ?? decibels(value)
      case "REPLAYGAIN_TRACK_PEAK": tags.trackPeak = tags.trackPeak ?? peak(value)
      case "REPLAYGAIN_ALBUM_PEAK": tags.albumPeak = tags.albumPeak ?? peak(value)
      // Opus: R128 gains are the ones its players read (RFC 7845); they win over REPLAYGAIN_* there.
      case "R128_TRACK_GAIN": if let gain = q78(value) { tags.trackGain = gain + 5 }
      case "R128_ALBUM_GAIN": if let gain = q78(value) { tags.albumGain = gain + 5 }
      default: break
      }
    }
    return tags
  }

  /// `-6.20 dB`, `+1.5dB`, `-6.2`: a gain in decibels within ±60 dB.
  static func decibels(_ text: String) -> Double? {
    var number = text.trimmingSpaces
    if number.lowercased().hasSuffix("db") { number = String(number.dropLast(2)).trimmingSpaces }
    guard let value = Double(number), value.isFinite, abs(value) <= 60 else { return nil }
    return value
  }

  /// `0.988547`: a linear peak, more than 0 and at most 10 (a peak above full scale is real after lossy coding).
  static func peak(_ text: String) -> Double? {
    guard let value = Double(text.trimmingSpaces), value.isFinite, value > 0, value <= 10 else { return nil }
    return value
  }

  /// An R128 gain: a signed integer in 1/256 dB.
  static func q78(_ text: String) -> Double? {
    guard let value = Int(text.trimmingSpaces), (-32_768...32_767).contains(value) else { return nil }
    return Double(value) / 256
  }

  // MARK: - Where the comments are

  /// The `VORBIS_COMMENT` block (type 4) among the metadata blocks after `fLaC`.
  static func flacComments(_ fd: Int32, at start: Int64 = 0) -> [(name: String, value: String)] {
    for body in FLACMetadata.bodies(of: .vorbisComment, fd, at: start) { return vorbisComments(body, from: 0) }
    return []
  }

  /// The comments of an Ogg Vorbis (`\u{3}vorbis`) or Opus (`OpusTags`) comment header.
  static func oggComments(_ packet: [UInt8]) -> [(name: String, value: String)] {
    if packet.starts(with: [3] + Array("vorbis".utf8)) { return vorbisComments(packet, from: 7) }
    if packet.starts(with: Array("OpusTags".utf8)) { return vorbisComments(packet, from: 8) }
    return []
  }

  /// Vorbis comments from `offset`: a vendor string, a count, then `NAME=value` strings (little-endian lengths).
  static func vorbisComments(_ bytes: [UInt8], from offset: Int) -> [(name: String, value: String)] {
    var reader = OggPicture.LittleEndianReader(bytes: bytes, offset: offset)
    guard let vendor = reader.u32(), reader.skip(Int(vendor)), let count = reader.u32() else { return [] }
    var comments: [(name: String, value: String)] = []
    for _ in 0..<min(count, 10_000) {
      guard let length = reader.u32(), let comment = reader.take(Int(length)) else { break }
      guard let equals = comment.firstIndex(of: UInt8(ascii: "=")) else { continue }
      comments.append(
        (String(decoding: comment[..<equals], as: UTF8.self), String(decoding: comment[(equals + 1)...], as: UTF8.self))
      )
    }
    return comments
  }

  /// The `TXXX` frames of an ID3v2.3 or 2.4 tag (`TXX` in 2.2): text encoding, description, value.
  static func id3Comments(_ tag: [UInt8]) -> [(name: String, value: String)] {
    guard var id3 = ID3Tag(tag) else { return [] }
    var comments: [(name: String, value: String)] = []
    while let frame = id3.nextFrame() {
      guard frame.id.elementsEqual((id3.version == 2 ? "TXX" : "TXXX").utf8), var content = Optional(frame.content),
        let encoding = try? content.u8(), let rest = try? content.array(content.remaining)
      else { continue }
      let strings = id3Strings(rest, encoding: encoding)
      guard strings.count >= 2 else { continue }
      comments.append((strings[0], strings[1]))
    }
    return comments
  }

  /// The zero-terminated strings of an ID3 text field in `encoding` (0 Latin-1, 1 UTF-16 with a byte-order mark,
  /// 2 UTF-16 big-endian, 3 UTF-8).
  static func id3Strings(_ bytes: [UInt8], encoding: UInt8) -> [String] {
    guard encoding == 1 || encoding == 2 else {
      return bytes.split(separator: 0, omittingEmptySubsequences: false).map { part in
        encoding == 3 ? String(decoding: part, as: UTF8.self) : String(part.map { Character(Unicode.Scalar($0)) })
      }
    }
    var units: [UInt16] = []
    var index = 0
    while index + 1 < bytes.count {
      units.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
      index += 2
    }
    return units.split(separator: 0, omittingEmptySubsequences: false).map { part in
      var part = Array(part)
      var littleEndian = false
      // Each string of encoding 1 starts with its own byte-order mark.
      if encoding == 1, let mark = part.first, mark == 0xFFFE || mark == 0xFEFF {
        littleEndian = mark == 0xFFFE
        part.removeFirst()
      }
      let ordered = littleEndian ? part.map { $0.byteSwapped } : part
      return String(decoding: ordered, as: UTF16.self)
    }
  }

  /// The freeform items (`----`) of `moov/udta/meta/ilst` named in the `com.apple.iTunes` space.
  static func mp4Comments(moov: MP4Box) -> [(name: String, value: String)] {
    guard let items = MP4Tags.items(in: moov) else { return [] }
    return items.filter { $0.type == MP4Box.type("----") }.compactMap { item in
      guard var name = try? item.child("name")?.body, (try? name.skip(4)) != nil,
        let label = try? name.array(name.remaining), let value = MP4Tags.data(item)
      else { return nil }
      return (String(decoding: label, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }
  }
}

extension String {
  fileprivate var trimmingSpaces: String {
    let trimmed = drop { $0 == " " || $0 == "\t" }
    return String(trimmed.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\0" }.reversed())
  }
}
