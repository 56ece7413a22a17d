import Testing

@testable import PlayerCore
@testable import PlayerDecoding

/// splay's MP4 index reader on indexes built here, value by value: the gapless timing it derives, and crafted
/// values (found by reading the code for overflows) refused or bounded without a trap or a long loop.
@Suite struct MP4IndexTests {
  static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
    be32(body.count + 8) + Array(type.unicodeScalars.map { UInt8($0.value) }) + body
  }
  static func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
  static func be64(_ value: Int64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

  /// A `moov` with one AAC-LC 44.1 kHz stereo track of `packets` 1024-frame packets of 100 bytes in one chunk at
  /// `offset`, `perChunk` samples per chunk in `stsc`, and one edit (`duration` at a 1000 Hz movie scale).
  static func moov(
    packets: Int = 10, offset: Int64 = 4096, perChunk: Int = 10, mediaTime: Int64 = 1024, duration: Int64 = 200
  ) -> MP4Box {
    let config: [UInt8] = [0x05, 2, 0x12, 0x10]
    let decoderConfig: [UInt8] = [0x04, 17, 0x40, 0x15, 0, 0, 0] + be32(0) + be32(0) + config
    let es: [UInt8] = [0x03, 22, 0, 1, 0] + decoderConfig
    let entry = box(
      "mp4a",
      [UInt8](repeating: 0, count: 6) + [0, 1] + [UInt8](repeating: 0, count: 20) + box("esds", [0, 0, 0, 0] + es))
    let stbl = box(
      "stbl",
      box("stsd", be32(0) + be32(1) + entry) + box("stts", be32(0) + be32(1) + be32(packets) + be32(1024))
        + box("stsz", be32(0) + be32(100) + be32(packets))
        + box("stsc", be32(0) + be32(1) + be32(1) + be32(perChunk) + be32(1))
        + box("co64", be32(0) + be32(1) + be64(offset)))
    let mdia = box(
      "mdia",
      box("mdhd", be32(0) + be32(0) + be32(0) + be32(44_100) + be32(packets * 1024) + be32(0))
        + box("hdlr", be32(0) + be32(0) + Array("soun".utf8) + [UInt8](repeating: 0, count: 13))
        + box("minf", stbl))
    let elst = box("elst", [1, 0, 0, 0] + be32(1) + be64(duration) + be64(mediaTime) + be32(0x0001_0000))
    let trak = box("trak", box("edts", elst) + mdia)
    let bytes = box("mvhd", be32(0) + be32(0) + be32(0) + be32(1000) + be32(0)) + trak
    return MP4Box(type: MP4Box.type("moov"), body: MP4Bytes(bytes))
  }

  static func format(_ moov: MP4Box) throws -> AACFormat? {
    guard let track = try MP4AudioTrack.first(in: moov) else { return nil }
    return AACFormat(track: track, tags: MP4Tags(moov: moov))
  }

  @Test func anEditListGivesTheDelayAndTheLengthInFrames() throws {
    let format = try #require(try Self.format(Self.moov(duration: 200)))
    #expect(format.sampleRate == 44_100 && format.channels == 2)
    #expect(format.delay == 1024)
    #expect(format.frames == 8820, "200 ms at 44.1 kHz")
    let track = try #require(try MP4AudioTrack.first(in: Self.moov()))
    #expect(track.offsets == (0..<10).map { 4096 + Int64($0) * 100 })
  }

  @Test func anEditTooLongToScaleIsClampedToThePackets() throws {
    let format = try #require(try Self.format(Self.moov(duration: .max)))
    #expect(format.frames == 10 * 1024 - 1024)
  }

  @Test func aDelayPastThePacketsIsRefused() throws {
    #expect(try Self.format(Self.moov(mediaTime: 1 << 40)) == nil)
  }

  @Test func aChunkOffsetNearTheLimitIsRefused() {
    #expect(throws: MP4ParseError.self) { try MP4AudioTrack.first(in: Self.moov(offset: .max - 50)) }
  }

  /// `stsc` claiming 2^32 - 1 samples per chunk: the offsets stop when every sample has one.
  @Test func aHugeSamplesPerChunkStopsAtTheLastSample() throws {
    let track = try #require(try MP4AudioTrack.first(in: Self.moov(perChunk: 0xFFFF_FFFF)))
    #expect(track.offsets.count == 10)
  }
}
