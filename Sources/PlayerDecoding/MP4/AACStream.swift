import Glibc
import PlayerCore

/// The AAC packets of an MP4 track being decoded: which packet comes next, the decoded frames not read yet, and
/// where on the track the next read starts.
///
/// Positions are frames of the track: the decoder's timeline less the encoder's delay (`delay`, from the edit
/// list or iTunSMPB). A seek starts a fresh decoder two packets before the target's and drops what comes before
/// the target, so a straight read and a seek agree on every frame's position.
struct AACStream: ~Copyable, @unchecked Sendable {
  /// Frames per AAC packet.
  static let packetFrames = AACFormat.packetFrames

  private let descriptor: Int32
  private let sizes: [UInt32]
  private let offsets: [Int64]
  /// Packets wholly inside the file (fewer than `sizes.count` when it is truncated).
  let playablePackets: Int
  /// The largest playable packet, in bytes (never more than the file holds).
  private let largestPacket: Int
  /// Frames of the decoder's timeline before the track's first frame.
  let delay: Int64
  let channels: Int
  private var decoder: FaadDecoder
  private var packetBuffer: [UInt8] = []
  /// The packet the next decode reads.
  private var nextPacket = 0
  /// Decoded frames, interleaved, from track frame `pendingStart`.
  private var pending: [Float] = []
  private var pendingStart: Int64 = 0
  private var pendingEnd: Int64 { pendingStart + Int64(pending.count / channels) }
  /// The frame the next read returns.
  private(set) var position: Int64 = 0

  /// Takes over `descriptor` (closed when the stream goes).
  init(
    descriptor: Int32, track: MP4AudioTrack, fileSize: Int64, delay: Int64, channels: Int,
    decoder: consuming FaadDecoder
  ) {
    self.descriptor = descriptor
    sizes = track.sizes
    offsets = track.offsets
    playablePackets = zip(track.offsets, track.sizes).prefix { $0 + Int64($1) <= fileSize }.count
    largestPacket = track.sizes.prefix(playablePackets).max().map(Int.init) ?? 0
    self.delay = delay
    self.channels = channels
    self.decoder = decoder
  }

  deinit { close(descriptor) }

  /// Decodes packets until the first one that gives audio, and returns what it said about the stream: nil when
  /// none decodes within the first few, or it is not plain AAC-LC at `rate` with `channels`.
  mutating func check(rate: Int) -> Bool {
    for _ in 0..<3 where nextPacket < playablePackets {
      guard let output = decodeNext(), !output.failed else { return false }
      if output.extended || (output.channels != 0 && output.channels != channels) { return false }
      if output.sampleRate != 0 && output.sampleRate != rate { return false }
      if output.frames > 0 { return true }
    }
    return false
  }

  /// Reads up to `frames` frames, stopping at `limit` (the track's length) or the last playable packet.
  mutating func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int, limit: Int64) -> Int {
    var written = 0
    while written < frames, position < limit {
      if position >= pendingStart, position < pendingEnd {
        let count = Int(min(Int64(frames - written), pendingEnd - position, limit - position))
        let from = Int(position - pendingStart) * channels
        for i in 0..<(count * channels) { buffer[written * channels + i] = pending[from + i] }
        written += count
        position += Int64(count)
      } else if position < pendingStart {
        // Audio the decoder cannot give (the priming frames of a stream whose delay is under one packet).
        let count = Int(min(Int64(frames - written), pendingStart - position, limit - position))
        for i in 0..<(count * channels) { buffer[written * channels + i] = 0 }
        written += count
        position += Int64(count)
      } else if decodeNext() == nil {
        break
      }
    }
    return written
  }

  /// Moves to `target`: a fresh decoder two packets before the target's packet.
  mutating func seek(to target: Int64) -> Bool {
    guard let fresh = FaadDecoder(config: decoder.config) else { return false }
    decoder = fresh
    let packet = (target + delay) / Self.packetFrames
    nextPacket = Int(max(0, packet - 2))
    pending.removeAll(keepingCapacity: true)
    pendingStart = Int64(nextPacket) * Self.packetFrames - delay
    position = target
    return true
  }

  /// What one decoded packet gave.
  struct Decoded {
    var frames: Int
    var channels: Int
    var sampleRate: Int
    var extended: Bool
    /// The packet could not be read or decoded: silence stands in for it.
    var failed = false
  }

  /// Decodes the next packet into `pending`; nil at the end of the playable packets. A packet that cannot be
  /// read or decoded becomes a packet of silence, so that later positions stay true, and the decoder starts
  /// afresh after it.
  private mutating func decodeNext() -> Decoded? {
    guard nextPacket < playablePackets else { return nil }
    let index = nextPacket
    nextPacket += 1
    let start = Int64(index) * Self.packetFrames - delay
    let size = Int(sizes[index])
    if packetBuffer.count < size { packetBuffer = [UInt8](repeating: 0, count: largestPacket) }
    let got = packetBuffer.withUnsafeMutableBytes { raw in
      pread(descriptor, raw.baseAddress, size, off_t(offsets[index]))
    }
    let output = packetBuffer.withUnsafeMutableBytes { raw in
      got == size ? decoder.decode(UnsafeMutableRawBufferPointer(rebasing: raw[0..<size])) : nil
    }
    guard let output, output.error == nil, output.channels == channels || output.samples.isEmpty else {
      pending = [Float](repeating: 0, count: Int(Self.packetFrames) * channels)
      pendingStart = start
      // FAAD2 can keep state from a damaged packet and decode every later one wrongly without an error (a
      // file with 2,000 random bytes: the second half differed). A fresh decoder costs one packet of pre-roll.
      if let fresh = FaadDecoder(config: decoder.config) { decoder = fresh }
      return Decoded(frames: Int(Self.packetFrames), channels: channels, sampleRate: 0, extended: false, failed: true)
    }
    pending.removeAll(keepingCapacity: true)
    if output.samples.isEmpty {
      // A fresh decoder's first packet gives no audio: silence holds its place, so the track keeps its length.
      pending.append(contentsOf: repeatElement(0, count: Int(Self.packetFrames) * channels))
    } else {
      pending.append(contentsOf: output.samples)
    }
    pendingStart = start
    return Decoded(
      frames: output.samples.count / max(output.channels, 1), channels: output.channels,
      sampleRate: output.sampleRate, extended: output.extended)
  }
}
