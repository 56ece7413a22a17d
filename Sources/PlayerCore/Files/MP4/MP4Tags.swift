/// The iTunes-style tags of an MP4 file (`moov/udta/meta/ilst`), and the gapless information iTunes writes there.
package struct MP4Tags {
  /// `©nam`.
  package var title: String?
  /// `©ART`, else `aART` (album artist).
  package var artist: String?
  /// `©alb`.
  package var album: String?
  /// `trkn` as `3/12` (or `3` without a total).
  package var trackNumber: String?
  /// `©day`.
  package var date: String?
  /// iTunSMPB: the encoder's delay, padding and the original length in samples.
  package var gapless: (delay: Int64, padding: Int64, length: Int64)?

  /// The tags in `moov`; empty when it has none. Malformed tags are left out, never an error: a player plays a
  /// file whose tags it cannot read.
  package init(moov: MP4Box) {
    guard let items = Self.items(in: moov) else { return }
    var artist: String?
    var albumArtist: String?
    for item in items {
      switch item.type {
      case MP4Box.type("©nam"): title = Self.text(item)
      case MP4Box.type("©ART"): artist = Self.text(item)
      case MP4Box.type("aART"): albumArtist = Self.text(item)
      case MP4Box.type("©alb"): album = Self.text(item)
      case MP4Box.type("©day"): date = Self.text(item)
      case MP4Box.type("trkn"): trackNumber = Self.trackNumber(item)
      case MP4Box.type("----"): gapless = Self.gapless(item) ?? gapless
      default: break
      }
    }
    self.artist = artist ?? albumArtist
  }

  /// The items of `moov/udta/meta/ilst`; nil when there are none.
  package static func items(in moov: MP4Box) -> [MP4Box]? {
    guard let meta = try? moov.descendant(["udta", "meta"]) else { return nil }
    // ISO `meta` is a full box (4 bytes of version and flags before its children); QuickTime's is not.
    var body = meta.body
    if let first = try? MP4Box.sequence(in: body).first, first.type == MP4Box.type("hdlr") {
    } else {
      try? body.skip(4)
    }
    return try? MP4Box(type: meta.type, body: body).child("ilst")?.children()
  }

  /// The value of an item's `data` box: its bytes after the type and locale fields.
  package static func data(_ item: MP4Box) -> [UInt8]? {
    guard var body = try? item.child("data")?.body, (try? body.skip(8)) != nil else { return nil }
    return try? body.array(body.remaining)
  }

  /// A text item; nil when empty. Invalid UTF-8 is repaired (U+FFFD), never passed on.
  private static func text(_ item: MP4Box) -> String? {
    guard let bytes = data(item), !bytes.isEmpty else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `trkn`: two reserved bytes, the track number, the total (16 bits each).
  private static func trackNumber(_ item: MP4Box) -> String? {
    guard let bytes = data(item), bytes.count >= 6 else { return nil }
    let number = Int(bytes[2]) << 8 | Int(bytes[3])
    let total = Int(bytes[4]) << 8 | Int(bytes[5])
    guard number > 0 else { return nil }
    return total > 0 ? "\(number)/\(total)" : "\(number)"
  }

  /// A freeform item named `iTunSMPB`: hexadecimal fields, the second to fourth of which are the delay, the
  /// padding and the original length.
  private static func gapless(_ item: MP4Box) -> (delay: Int64, padding: Int64, length: Int64)? {
    guard var name = try? item.child("name")?.body, (try? name.skip(4)) != nil,
      let label = try? name.array(name.remaining), String(decoding: label, as: UTF8.self) == "iTunSMPB",
      let bytes = data(item)
    else { return nil }
    let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ").compactMap { Int64($0, radix: 16) }
    guard fields.count >= 4, fields[1] >= 0, fields[2] >= 0, fields[3] > 0 else { return nil }
    return (fields[1], fields[2], fields[3])
  }
}
