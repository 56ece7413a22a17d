/// The first audio track of an MP4 file (`moov/trak` with a `soun` handler), as its boxes describe it: the codec,
/// where each sample (packet) is in the file, the timing and the edit list.
package struct MP4AudioTrack {
  /// The sample entry's type (`mp4a`, `alac`, `ac-3`…).
  package let codec: UInt32
  /// For `mp4a`: the ES descriptor's object type (0x40 is MPEG-4 audio, 0x66-0x68 MPEG-2 AAC); nil otherwise.
  package let objectType: UInt8?
  /// For `mp4a`: the decoder's configuration (an AAC AudioSpecificConfig).
  package let decoderConfig: [UInt8]
  /// The media's time scale (`mdhd`): samples per second for audio.
  package let timescale: Int64
  /// The movie's time scale (`mvhd`), in which the edit list's durations count.
  package let movieTimescale: Int64
  /// Each sample's duration in the media's time scale, run-length coded as `stts` stores them.
  package let durations: [(count: Int, delta: Int64)]
  /// Each sample's size in bytes.
  package let sizes: [UInt32]
  /// Each sample's offset in the file.
  package let offsets: [Int64]
  /// The edit list: nil when the track has none.
  package let edit: MP4Edit?

  /// The first audio track in `moov`, or nil when there is none.
  package static func first(in moov: MP4Box) throws(MP4ParseError) -> MP4AudioTrack? {
    let movieTimescale = try moov.child("mvhd").map { box throws(MP4ParseError) in try timescale(box) } ?? 0
    for trak in try moov.children() where trak.type == MP4Box.type("trak") {
      guard let mdia = try trak.child("mdia"), let hdlr = try mdia.child("hdlr") else { continue }
      var handler = hdlr.body
      try handler.skip(8)
      guard try handler.u32() == MP4Box.type("soun") else { continue }
      guard let mdhd = try mdia.child("mdhd"), let stbl = try mdia.descendant(["minf", "stbl"]) else {
        throw MP4ParseError(reason: "the audio track has no sample table")
      }
      return try MP4AudioTrack(
        stbl: stbl, timescale: try timescale(mdhd), movieTimescale: movieTimescale,
        edit: try trak.descendant(["edts", "elst"]).map { box throws(MP4ParseError) in try MP4Edit(box) })
    }
    return nil
  }

  private init(stbl: MP4Box, timescale: Int64, movieTimescale: Int64, edit: MP4Edit?) throws(MP4ParseError) {
    self.timescale = timescale
    self.movieTimescale = movieTimescale
    self.edit = edit
    guard let stsd = try stbl.child("stsd") else { throw MP4ParseError(reason: "the audio track has no stsd") }
    var entries = stsd.body
    try entries.skip(8)
    guard let entry = try MP4Box.sequence(in: entries).first else {
      throw MP4ParseError(reason: "the audio track has no sample description")
    }
    codec = entry.type
    if entry.type == MP4Box.type("mp4a") {
      (objectType, decoderConfig) = try Self.elementaryStream(entry)
    } else {
      (objectType, decoderConfig) = (nil, [])
    }
    durations = try Self.table(stbl, "stts", width: 8) { reader throws(MP4ParseError) in
      (Int(try reader.u32()), Int64(try reader.u32()))
    }
    sizes = try Self.sampleSizes(stbl)
    offsets = try Self.sampleOffsets(stbl, sizes: sizes)
  }

  /// The `timescale` field of an `mvhd` or `mdhd` box.
  private static func timescale(_ box: MP4Box) throws(MP4ParseError) -> Int64 {
    var reader = box.body
    let version = try reader.u8()
    try reader.skip(version == 1 ? 3 + 16 : 3 + 8)
    return Int64(try reader.u32())
  }

  /// The entries of the full box `name` in `stbl`: a count, then `width` bytes each, read by `entry`. The count
  /// is checked against the box's size before anything is allocated.
  private static func table<T>(
    _ stbl: MP4Box, _ name: String, width: Int, _ entry: (inout MP4Bytes) throws(MP4ParseError) -> T
  ) throws(MP4ParseError) -> [T] {
    guard var reader = try stbl.child(name)?.body else { throw MP4ParseError(reason: "the audio track has no \(name)") }
    try reader.skip(4)
    let count = Int(try reader.u32())
    guard count <= reader.remaining / width else { throw MP4ParseError(reason: "\(name) claims \(count) entries") }
    var entries: [T] = []
    entries.reserveCapacity(count)
    for _ in 0..<count { entries.append(try entry(&reader)) }
    return entries
  }

  private static func sampleSizes(_ stbl: MP4Box) throws(MP4ParseError) -> [UInt32] {
    guard var reader = try stbl.child("stsz")?.body else { throw MP4ParseError(reason: "the audio track has no stsz") }
    try reader.skip(4)
    let uniform = try reader.u32()
    let count = Int(try reader.u32())
    if uniform != 0 {
      guard count <= 1 << 26 else { throw MP4ParseError(reason: "stsz claims \(count) samples") }
      return [UInt32](repeating: uniform, count: count)
    }
    guard count <= reader.remaining / 4 else { throw MP4ParseError(reason: "stsz claims \(count) entries") }
    return try (0..<count).map { _ throws(MP4ParseError) in try reader.u32() }
  }

  /// Each sample's file offset: chunks from `stco`/`co64`, samples per chunk from `stsc`, packed by size.
  private static func sampleOffsets(_ stbl: MP4Box, sizes: [UInt32]) throws(MP4ParseError) -> [Int64] {
    let chunks: [Int64] =
      if try stbl.child("co64") != nil {
        try table(stbl, "co64", width: 8) { reader throws(MP4ParseError) in
          let offset = try reader.u64()
          guard offset < 1 << 62 else { throw MP4ParseError(reason: "a chunk offset of \(offset)") }
          return Int64(offset)
        }
      } else {
        try table(stbl, "stco", width: 4) { reader throws(MP4ParseError) in Int64(try reader.u32()) }
      }
    let runs = try table(stbl, "stsc", width: 12) { reader throws(MP4ParseError) in
      let first = Int(try reader.u32())
      let samples = Int(try reader.u32())
      try reader.skip(4)
      return (first: first, samples: samples)
    }
    var offsets: [Int64] = []
    offsets.reserveCapacity(sizes.count)
    runs: for (index, run) in runs.enumerated() {
      let next = index + 1 < runs.count ? runs[index + 1].first : chunks.count + 1
      guard run.first >= 1, next >= run.first, next <= chunks.count + 1 else {
        throw MP4ParseError(reason: "stsc is out of order")
      }
      for chunk in run.first..<next {
        // Offsets below 2^62 and sizes below 2^32: the sums cannot overflow.
        var offset = chunks[chunk - 1]
        for _ in 0..<run.samples {
          if offsets.count == sizes.count { break runs }
          offsets.append(offset)
          offset += Int64(sizes[offsets.count - 1])
        }
      }
    }
    guard offsets.count == sizes.count else {
      throw MP4ParseError(reason: "the chunks hold \(offsets.count) of \(sizes.count) samples")
    }
    return offsets
  }

  /// The object type and decoder configuration in an `mp4a` entry's `esds` (directly inside, or in a
  /// QuickTime `wave` box).
  private static func elementaryStream(_ entry: MP4Box) throws(MP4ParseError) -> (UInt8, [UInt8]) {
    var reader = entry.body
    try reader.skip(8)
    let version = try reader.u16()
    try reader.skip(6 + 12)
    // QuickTime sound descriptions 1 and 2 carry more fields before the child boxes.
    try reader.skip(version == 1 ? 16 : version == 2 ? 36 : 0)
    let children = MP4Box(type: entry.type, body: reader)
    var found = try children.child("esds")
    if found == nil { found = try children.descendant(["wave", "esds"]) }
    guard let esds = found else {
      throw MP4ParseError(reason: "the mp4a entry has no esds")
    }
    var body = esds.body
    try body.skip(4)
    guard var es = try descriptor(3, in: &body) else { throw MP4ParseError(reason: "esds has no ES descriptor") }
    try es.skip(2)
    let flags = try es.u8()
    if flags & 0x80 != 0 { try es.skip(2) }
    if flags & 0x40 != 0 { try es.skip(Int(try es.u8())) }
    if flags & 0x20 != 0 { try es.skip(2) }
    guard var config = try descriptor(4, in: &es) else { throw MP4ParseError(reason: "esds has no decoder config") }
    let objectType = try config.u8()
    try config.skip(12)
    guard let specific = try descriptor(5, in: &config) else { return (objectType, []) }
    var copy = specific
    return (objectType, try copy.array(specific.remaining))
  }

  /// The body of the first descriptor tagged `tag` among those that follow in `reader`, or nil.
  private static func descriptor(_ tag: UInt8, in reader: inout MP4Bytes) throws(MP4ParseError) -> MP4Bytes? {
    while reader.remaining >= 2 {
      let found = try reader.u8()
      var size = 0
      for _ in 0..<4 {
        let byte = try reader.u8()
        size = size << 7 | Int(byte & 0x7F)
        if byte & 0x80 == 0 { break }
      }
      let body = try reader.take(size)
      if found == tag { return body }
    }
    return nil
  }
}

/// A track's edit list, when it is the one kind players write for gapless audio: one edit that starts the
/// presentation `mediaTime` samples into the media (the encoder's delay) and lasts `duration` (in the movie's time
/// scale). Anything else is `complex`.
package enum MP4Edit {
  /// One edit: start at `mediaTime` (media time scale), last `duration` (movie time scale).
  case single(mediaTime: Int64, duration: Int64)
  /// Empty edits, several edits, or a rate other than 1.
  case complex

  package init(_ box: MP4Box) throws(MP4ParseError) {
    var reader = box.body
    let version = try reader.u8()
    try reader.skip(3)
    let count = try reader.u32()
    guard count == 1 else {
      self = .complex
      return
    }
    let duration = Int64(bitPattern: version == 1 ? try reader.u64() : UInt64(try reader.u32()))
    let mediaTime =
      version == 1 ? Int64(bitPattern: try reader.u64()) : Int64(Int32(bitPattern: try reader.u32()))
    let rate = try reader.u32()
    self = mediaTime >= 0 && rate == 0x0001_0000 ? .single(mediaTime: mediaTime, duration: duration) : .complex
  }
}
