import Foundation
import Testing

@testable import PlayerCore
@testable import PlayerDecoding
@testable import PlayerLibrary

/// Pictures inside audio files: as ffmpeg writes them into FLAC, MP3 (ID3v2.3 and 2.4) and M4A, as other taggers
/// write ID3 (unsynchronised, v2.2, several pictures), and what damaged tags give (nothing, never a crash).
@Suite struct EmbeddedPictureTests {
  /// A tiny JPEG and PNG made by ffmpeg, and their bytes.
  static func images() throws -> (jpeg: String, png: String) {
    let folder = FFmpegFixtures.folder
    let jpeg = folder + "/cover.jpg"
    let png = folder + "/cover.png"
    if !FileManager.default.fileExists(atPath: png) {
      try FFmpegFixtures.run(["-f", "lavfi", "-i", "color=c=red:s=48x48", "-frames:v", "1", jpeg])
      try FFmpegFixtures.run(["-f", "lavfi", "-i", "color=c=blue:s=24x24", "-frames:v", "1", png])
    }
    return (jpeg, png)
  }

  static func bytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path) ?? Data()) }

  @Test(
    .enabled(if: FFmpegFixtures.ffmpeg != nil, "needs ffmpeg to make the files"),
    arguments: [
      ("flac", "jpeg", ["-c:a", "flac"]), ("mp3", "png", ["-c:a", "libmp3lame", "-id3v2_version", "3"]),
      ("mp3", "jpeg", ["-c:a", "libmp3lame", "-id3v2_version", "4"]), ("m4a", "jpeg", ["-c:a", "aac"]),
    ])
  func thePictureFFmpegEmbedsIsReadBack(container: String, image: String, codec: [String]) throws {
    let (jpeg, png) = try Self.images()
    let picture = image == "png" ? png : jpeg
    let name = "art-\(codec.joined().filter(\.isLetter))-\(image).\(container)"
    let file = try FFmpegFixtures.transcodeFile(
      FFmpegFixtures.sourceWAV, as: name,
      ["-i", picture, "-map", "0:a", "-map", "1"] + codec + ["-c:v", "copy", "-disposition:v", "attached_pic"])
    let read = try #require(EmbeddedPicture.read(atPath: file))
    #expect(read.bytes == Self.bytes(picture))
    #expect(read.fileExtension == (image == "png" ? "png" : "jpg"))
    // The decoder still reads the audio of a file that carries a picture.
    #expect(try StandardDecoderFactory().open(file).info.frames > 0)
  }

  /// Ogg carries the picture as a base64 FLAC `PICTURE` block in a comment; ffmpeg writes any comment, so the
  /// block is made here. A 200×200 noise PNG (about 75 kB in base64) spreads the comment header over several pages.
  @Test(
    .enabled(if: FFmpegFixtures.ffmpeg != nil, "needs ffmpeg to make the files"),
    arguments: [("opus", "libopus"), ("ogg", "libvorbis")])
  func anOggCommentPictureIsReadBack(container: String, codec: String) throws {
    let folder = FFmpegFixtures.folder
    let png = folder + "/noise-\(container).png"
    try FFmpegFixtures.run(["-f", "lavfi", "-i", "nullsrc=s=200x200,geq=random(1)*255:128:128", "-frames:v", "1", png])
    let image = Self.bytes(png)
    var block = Self.bigEndian(4) + Self.bigEndian(9) + Array("image/png".utf8) + Self.bigEndian(0)
    block += [UInt8](repeating: 0, count: 16) + Self.bigEndian(image.count) + image
    let metadata = folder + "/picture-\(container).txt"
    let comment = ";FFMETADATA1\nMETADATA_BLOCK_PICTURE=\(Data(block).base64EncodedString())\ntitle=t\n"
    try Data(comment.utf8).write(to: URL(fileURLWithPath: metadata))
    let file = try FFmpegFixtures.transcodeFile(
      FFmpegFixtures.sourceWAV, as: "art.\(container)", ["-i", metadata, "-map_metadata", "1", "-c:a", codec])
    #expect(comment.utf8.count > 65_025, "more than one page holds: \(comment.utf8.count) bytes")
    let read = try #require(EmbeddedPicture.read(atPath: file))
    #expect(read.bytes == image && read.fileExtension == "png")
    #expect(try StandardDecoderFactory().open(file).info.frames > 0)
  }

  @Test func vorbisCommentsAreReadWhateverTheCaseOfTheirName() {
    var block = Self.bigEndian(3) + Self.bigEndian(0) + Self.bigEndian(0) + [UInt8](repeating: 0, count: 16)
    block += Self.bigEndian(Self.jpeg.count) + Self.jpeg
    func comments(_ entries: [String]) -> [UInt8] {
      let little = { (value: Int) in (0..<4).map { UInt8((value >> ($0 * 8)) & 0xFF) } }
      return Array("OpusTags".utf8) + little(1) + [0x78] + little(entries.count)
        + entries.flatMap { little($0.utf8.count) + Array($0.utf8) }
    }
    let encoded = Data(block).base64EncodedString()
    let packet = comments(["TITLE=x", "metadata_block_picture=\(encoded)"])
    #expect(OggPicture.fromCommentHeader(packet)?.bytes == Self.jpeg)
    #expect(OggPicture.fromCommentHeader(comments(["METADATA_BLOCK_PICTURE=!!not base64"])) == nil)
    #expect(OggPicture.fromCommentHeader(Array(packet.dropLast(9))) == nil, "a comment cut short")
    #expect(Base64.decode(Array("aGk=".utf8)) == Array("hi".utf8))
    #expect(Base64.decode(Array("aG=k".utf8)) == nil, "nothing after the padding")
  }

  @Test func aFileWithoutAPictureHasNone() {
    for fixture in [
      "media/short-44k-stereo.flac", "media/ladder-44k-stereo.mp3", "media/ladder-44k-stereo.ogg",
      "media/ladder-48k-mono.opus", "broken/truncated-header.ogg", "broken/empty.wav", "nope.flac",
    ] {
      #expect(EmbeddedPicture.read(atPath: Fixtures.root + "/" + fixture) == nil, "\(fixture)")
    }
  }

  static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0xFF, 0x00, 0x10, 0xFF, 0xD9]
  static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  /// An APIC frame body: encoding, MIME type, picture type, description, image.
  static func apic(type: UInt8, image: [UInt8], utf16: Bool = false) -> [UInt8] {
    let description: [UInt8] = utf16 ? [0xFF, 0xFE, 0x41, 0x00, 0x00, 0x00] : Array("front\0".utf8)
    return [utf16 ? 1 : 0] + Array("image/jpeg\0".utf8) + [type] + description + image
  }

  static func syncsafe(_ value: Int) -> [UInt8] { [21, 14, 7, 0].map { UInt8((value >> $0) & 0x7F) } }
  static func bigEndian(_ value: Int, width: Int = 4) -> [UInt8] {
    (0..<width).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) }
  }

  /// A tag of `version` with these frames (id, flags, body).
  static func tag(version: UInt8, flags: UInt8 = 0, _ frames: [(String, UInt16, [UInt8])]) -> [UInt8] {
    var body: [UInt8] = []
    for (id, frameFlags, content) in frames {
      body += Array(id.utf8)
      switch version {
      case 2: body += bigEndian(content.count, width: 3)
      case 3: body += bigEndian(content.count) + bigEndian(Int(frameFlags), width: 2)
      default: body += syncsafe(content.count) + bigEndian(Int(frameFlags), width: 2)
      }
      body += content
    }
    body += [UInt8](repeating: 0, count: 16)
    return Array("ID3".utf8) + [version, 0, flags] + syncsafe(body.count) + body
  }

  @Test func theFrontCoverWinsOverAPictureBeforeIt() {
    let tag = Self.tag(
      version: 3,
      [
        ("TIT2", 0, [0] + Array("t".utf8)), ("APIC", 0, Self.apic(type: 4, image: Self.png)),
        ("APIC", 0, Self.apic(type: 3, image: Self.jpeg, utf16: true)),
      ])
    #expect(EmbeddedPicture.fromID3(tag)?.bytes == Self.jpeg)
    let backOnly = Self.tag(version: 3, [("APIC", 0, Self.apic(type: 4, image: Self.png))])
    #expect(EmbeddedPicture.fromID3(backOnly) == EmbeddedPicture(image: Self.png), "else the first picture")
  }

  @Test func unsynchronisedTagsAndFramesAreRestored() {
    // Unsynchronisation inserts 00 after every FF; the JPEG's bytes come back without them.
    let stuffed = Self.apic(type: 3, image: Self.jpeg).flatMap { $0 == 0xFF ? [0xFF, 0x00] : [$0] }
    // Before 2.4 the whole tag is unsynchronised after its frames were made: their sizes count the real bytes.
    let plain = Self.tag(version: 3, [("APIC", 0, Self.apic(type: 3, image: Self.jpeg))])
    let body = plain[10...].flatMap { $0 == 0xFF ? [0xFF, 0x00] : [$0] }
    let whole = Array("ID3".utf8) + [3, 0, 0x80] + Self.syncsafe(body.count) + body
    #expect(EmbeddedPicture.fromID3(whole)?.bytes == Self.jpeg)
    let frame = Self.tag(version: 4, [("APIC", 0x0002, stuffed)])
    #expect(EmbeddedPicture.fromID3(frame)?.bytes == Self.jpeg)
    let withLength = Self.tag(version: 4, [("APIC", 0x0003, Self.syncsafe(Self.jpeg.count) + stuffed)])
    #expect(EmbeddedPicture.fromID3(withLength)?.bytes == Self.jpeg)
  }

  @Test func version2PicFramesAndHiddenFrames() {
    let pic: [UInt8] = [0] + Array("JPG".utf8) + [3] + [0] + Self.jpeg
    #expect(EmbeddedPicture.fromID3(Self.tag(version: 2, [("PIC", 0, pic)]))?.bytes == Self.jpeg)
    let compressed = Self.tag(version: 3, [("APIC", 0x0080, Self.apic(type: 3, image: Self.jpeg))])
    #expect(EmbeddedPicture.fromID3(compressed) == nil, "a compressed frame is not an image as it stands")
    let notImage = Self.tag(version: 4, [("APIC", 0, Self.apic(type: 3, image: Array("<html>".utf8)))])
    #expect(EmbeddedPicture.fromID3(notImage) == nil, "bytes without an image signature are no picture")
  }

  @Test func aFLACPictureBlockIsReadWhateverItsNeighbours() {
    var block = Self.bigEndian(3) + Self.bigEndian(9) + Array("image/png".utf8) + Self.bigEndian(0)
    block += Self.bigEndian(24) + Self.bigEndian(24) + Self.bigEndian(32) + Self.bigEndian(0)
    block += Self.bigEndian(Self.png.count) + Self.png
    #expect(EmbeddedPicture.flacPicture(MP4Bytes(block))?.1 == EmbeddedPicture(image: Self.png))
    #expect(EmbeddedPicture.flacPicture(MP4Bytes(Array(block.dropLast()))) == nil, "a block cut short")
  }

  /// Every cut and many corruptions of a real tag: a picture or nothing, never a trap or a read past the end.
  @Test func damagedTagsGiveNothingAndNeverCrash() {
    let tag = Self.tag(
      version: 4, [("APIC", 0x0001, Self.syncsafe(20) + Self.apic(type: 3, image: Self.jpeg, utf16: true))])
    #expect(EmbeddedPicture.fromID3(tag)?.bytes == Self.jpeg)
    // What comes out is an image that was in what went in: never bytes from past its end.
    func isFrom(_ input: [UInt8]) -> (EmbeddedPicture?) -> Bool {
      { picture in picture.map { $0.bytes.count <= input.count && EmbeddedPicture(image: $0.bytes) != nil } ?? true }
    }
    for cut in 0..<tag.count {
      let input = Array(tag.prefix(cut))
      #expect(isFrom(input)(EmbeddedPicture.fromID3(input)), "cut at \(cut)")
    }
    var random = SplitMix64(seed: 23)
    var outcomes = (pictures: 0, nothing: 0)
    for _ in 0..<5_000 {
      var damaged = tag
      for _ in 0..<3 { damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next()) }
      for version in [nil, UInt8(2), 3] {
        if let version { damaged[3] = version }
        let picture = EmbeddedPicture.fromID3(damaged)
        #expect(isFrom(damaged)(picture))
        if picture == nil { outcomes.nothing += 1 } else { outcomes.pictures += 1 }
      }
    }
    // Both ways out are taken: the damage lands in the picture's frame and outside it.
    #expect(outcomes.pictures > 0 && outcomes.nothing > 0, "\(outcomes)")
  }

  @Test func aStoredPictureIsAPrivateFileNamedByItsContent() throws {
    let picture = try #require(EmbeddedPicture(image: Self.jpeg))
    let path = try #require(PictureFiles.store(picture))
    #expect(path.hasSuffix(".jpg") && Self.bytes(path) == Self.jpeg)
    #expect(PictureFiles.store(picture) == path, "the same picture is one file")
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o077 } == 0, "only the user reads it")
    let other = try #require(EmbeddedPicture(image: Self.png))
    #expect(PictureFiles.store(other) != path)
  }
}
