import PlayerCore

/// What an MP4 audio track must be for ``AACDecoder`` (AAC-LC, one or two channels, 1024-frame packets, a media
/// time scale of the sample rate, gapless information), and the timing that follows from it.
struct AACFormat: Equatable {
  /// Frames per AAC packet (AAC-LC; 960-frame streams are left to FFmpeg).
  static let packetFrames: Int64 = 1024

  /// Frames per second.
  let sampleRate: Int
  /// Channels per frame.
  let channels: Int
  /// Frames of the decoder's timeline before the track's first frame (the encoder's delay).
  let delay: Int64
  /// The track's length in frames, as the file declares it.
  let frames: Int64

  /// The format of `track`, or nil when it is not one ``AACDecoder`` plays.
  init?(track: MP4AudioTrack, tags: MP4Tags) {
    // MPEG-4 audio, or MPEG-2 AAC LC.
    guard track.codec == MP4Box.type("mp4a"), track.objectType == 0x40 || track.objectType == 0x67,
      let config = Self.audioSpecificConfig(track.decoderConfig), config.objectType == 2,
      (1...2).contains(config.channels), !config.shortFrames, Int64(config.sampleRate) == track.timescale
    else { return nil }
    // Every packet lasts 1024 frames; only the last may be shorter.
    for (index, run) in track.durations.enumerated() where run.delta != Self.packetFrames {
      guard index == track.durations.count - 1, run.count == 1, run.delta < Self.packetFrames else {
        return nil
      }
    }
    // As many durations as packets (each count is below 2^32, and there are fewer than 2^24 of them: no overflow).
    guard track.durations.reduce(0, { $0 + $1.count }) == track.sizes.count else { return nil }
    let total = track.durations.reduce(Int64(0)) { $0 + Int64($1.count) * $1.delta }
    sampleRate = config.sampleRate
    channels = config.channels
    switch track.edit {
    case .single(let mediaTime, let duration):
      guard mediaTime <= total else { return nil }
      delay = mediaTime
      let scaled = duration.multipliedReportingOverflow(by: Int64(sampleRate))
      let declared =
        duration > 0 && track.movieTimescale > 0 && !scaled.overflow
        ? (scaled.partialValue + track.movieTimescale / 2) / track.movieTimescale : total - mediaTime
      frames = max(0, min(declared, total - mediaTime))
    case .complex:
      return nil
    case nil:
      // Without gapless information FFmpeg plays the priming frames too; this decoder cannot (FAAD2 gives no
      // audio for the first packet), so the file is left to it.
      guard let gapless = tags.gapless, gapless.delay <= total else { return nil }
      delay = gapless.delay
      frames = max(0, min(gapless.length, total - gapless.delay))
    }
  }

  /// The fields of an AudioSpecificConfig this decoder looks at.
  struct Config {
    var objectType: Int
    var sampleRate: Int
    var channels: Int
    /// 960-frame packets.
    var shortFrames: Bool
  }

  static let sampleRates = [
    96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350,
  ]

  /// Reads an AudioSpecificConfig (ISO 14496-3 1.6.2.1) as far as the GA specific config's first flag.
  static func audioSpecificConfig(_ bytes: [UInt8]) -> Config? {
    var bit = 0
    func read(_ count: Int) -> Int? {
      guard bit + count <= bytes.count * 8 else { return nil }
      var value = 0
      for _ in 0..<count {
        value = value << 1 | Int(bytes[bit / 8] >> (7 - UInt8(bit % 8)) & 1)
        bit += 1
      }
      return value
    }
    guard var objectType = read(5), let index = read(4) else { return nil }
    if objectType == 31 {
      guard let extended = read(6) else { return nil }
      objectType = 32 + extended
    }
    let rate: Int
    if index == 15 {
      guard let explicit = read(24) else { return nil }
      rate = explicit
    } else {
      guard index < sampleRates.count else { return nil }
      rate = sampleRates[index]
    }
    guard let channels = read(4), let frameLength = read(1) else { return nil }
    return Config(objectType: objectType, sampleRate: rate, channels: channels, shortFrames: frameLength == 1)
  }
}
