import CFaad
import PlayerCore

/// One FAAD2 decoder for an AAC-LC stream of known configuration, set to output 32-bit floats (±1.0).
///
/// FAAD2 returns no audio for the first packet it decodes (the MDCT overlap is not complete yet): the output of
/// packet `n` is the audio of frames `n × 1024 ..< (n + 1) × 1024` on the decoder's timeline. A fresh decoder is
/// how a seek starts again, so the first packet after a seek is pre-roll.
///
/// Sendable without the compiler's proof: the handle belongs to no thread, and its owner uses it from one at a
/// time (``AACStream`` is kept behind a lock).
struct FaadDecoder: ~Copyable, @unchecked Sendable {
  private let handle: NeAACDecHandle
  /// The AudioSpecificConfig the decoder was started with.
  let config: [UInt8]

  /// A decoder for the stream that `config` (an AudioSpecificConfig) describes; nil when libfaad is missing or
  /// refuses the configuration.
  init?(config: [UInt8]) {
    guard splay_faad_load() == nil, let handle = splay_NeAACDecOpen() else { return nil }
    if let settings = splay_NeAACDecGetCurrentConfiguration(handle) {
      settings.pointee.outputFormat = UInt8(FAAD_FMT_FLOAT)
      settings.pointee.downMatrix = 0
      // An LC stream that carries SBR without saying so in its configuration is refused by the stream (it
      // checks `sbr` after the first packet): it belongs to FFmpeg, which decodes it at the full rate.
      settings.pointee.dontUpSampleImplicitSBR = 1
      _ = splay_NeAACDecSetConfiguration(handle, settings)
    }
    var bytes = config
    var rate: UInt = 0
    var channels: UInt8 = 0
    let started = bytes.withUnsafeMutableBufferPointer { buffer in
      splay_NeAACDecInit2(handle, buffer.baseAddress, UInt(buffer.count), &rate, &channels)
    }
    guard started >= 0 else {
      splay_NeAACDecClose(handle)
      return nil
    }
    self.handle = handle
    self.config = config
  }

  deinit { splay_NeAACDecClose(handle) }

  /// What decoding one packet gave.
  struct Output {
    /// Interleaved samples; empty for the first packet, or when the packet could not be decoded.
    var samples: UnsafeBufferPointer<Float>
    /// The number of channels of the samples.
    var channels: Int
    /// Their rate.
    var sampleRate: Int
    /// The packet carried SBR or parametric stereo (HE-AAC).
    var extended: Bool
    /// FAAD2's message when the packet could not be decoded.
    var error: String?
  }

  /// Decodes one packet. The samples stay valid until the next call.
  func decode(_ packet: UnsafeMutableRawBufferPointer) -> Output {
    var info = NeAACDecFrameInfo()
    let result = splay_NeAACDecDecode(
      handle, &info, packet.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(packet.count))
    if info.error != 0 {
      let message = splay_NeAACDecGetErrorMessage(info.error).map { String(cString: $0) } ?? "error \(info.error)"
      return Output(
        samples: UnsafeBufferPointer(start: nil, count: 0), channels: 0, sampleRate: 0, extended: false,
        error: message)
    }
    let count = result == nil ? 0 : Int(info.samples)
    return Output(
      samples: UnsafeBufferPointer(start: result?.assumingMemoryBound(to: Float.self), count: count),
      channels: Int(info.channels), sampleRate: Int(info.samplerate), extended: info.sbr != 0 || info.ps != 0,
      error: nil)
  }
}
