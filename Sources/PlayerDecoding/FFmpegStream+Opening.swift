import CFFmpeg
import PlayerCore

/// What opening a file needs besides the opening itself: choosing the stream, naming its codec, and saying why
/// a file was refused.
extension FFmpegStream {
  /// FFmpeg's name for the codec, or for a codec it does not know, the container's four-character tag.
  static func codecName(_ parameters: AVCodecParameters) -> String {
    if parameters.codec_id == AV_CODEC_ID_NONE {
      let tag = parameters.codec_tag
      let characters = (0..<4).map { UInt8(truncatingIfNeeded: tag >> ($0 * 8)) }
      guard tag != 0, characters.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return "(unknown)" }
      return "'\(String(decoding: characters, as: UTF8.self))'"
    }
    return String(cString: splay_avcodec_get_name(parameters.codec_id))
  }

  /// The audio stream to decode: the one FFmpeg ranks best. A container with streams but none of audio is
  /// refused as such; one whose audio stream lacks a channel count or sample rate is taken for garbage (random
  /// bytes named `.flac` open as a FLAC stream with neither).
  static func audioStream(
    in format: UnsafeMutablePointer<AVFormatContext>, path: String
  ) throws(DecoderOpenFailure) -> Int32 {
    let best = splay_av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
    if best >= 0 { return best }
    let streams = UnsafeBufferPointer(start: format.pointee.streams, count: Int(format.pointee.nb_streams))
    let hasAudio = streams.contains { $0?.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
    if hasAudio { throw failure(.unrecognised, path, "FFmpeg finds no channel count or sample rate") }
    throw failure(.refused, path, "no audio stream")
  }

  /// FFmpeg's text for an error code.
  static func text(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 128)
    guard splay_av_strerror(code, &buffer, buffer.count) == 0 else { return "error \(code)" }
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  static func failure(_ stage: DecoderOpenFailure.Stage, _ path: String, _ detail: String)
    -> DecoderOpenFailure
  {
    DecoderOpenFailure(stage: stage, error: .unsupportedFormat(path: path, detail: detail))
  }
}
