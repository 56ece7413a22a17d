import CFFmpeg
import PlayerCore

/// What the file says about the stream: its container and codec, tags and length.
extension FFmpegStream {
  /// The container: its demuxer's name (`mov,mp4,m4a,3gp,3g2,mj2`).
  var containerName: String { String(cString: format.pointee.iformat.pointee.name) }

  /// The codec's FFmpeg name (`aac`, `alac`).
  var codecName: String { Self.codecName(format.pointee.streams[Int(index)]!.pointee.codecpar.pointee) }

  /// Bits per sample of the stored audio for lossless codecs (ALAC, FLAC, WavPack), as the stream declares
  /// them; nil for lossy ones, which declare none.
  var bitDepth: Int? {
    let bits = format.pointee.streams[Int(index)]!.pointee.codecpar.pointee.bits_per_raw_sample
    return bits > 0 ? Int(bits) : nil
  }

  /// The file's tag `key` (any case), or the stream's (Ogg and Matroska tag streams); nil when neither has one or
  /// it is empty.
  func tag(_ key: String) -> String? {
    let stream = format.pointee.streams[Int(index)]!
    for dictionary in [format.pointee.metadata, stream.pointee.metadata] {
      if let entry = splay_av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value {
        let text = String(cString: value)
        if !text.isEmpty { return text }
      }
    }
    return nil
  }

  /// The length in frames when the container declares it (an MP4's edit list or track duration, a FLAC's
  /// STREAMINFO, an Ogg's last granule position): nil when FFmpeg could only estimate it from the bit rate (raw
  /// ADTS) or does not know it.
  var declaredFrames: Int64? {
    let stream = format.pointee.streams[Int(index)]!
    let duration = stream.pointee.duration
    if duration != splay_av_nopts_value(), duration > 0 { return frames(of: duration, from: 0) }
    guard format.pointee.duration_estimation_method != AVFMT_DURATION_FROM_BITRATE,
      format.pointee.duration != splay_av_nopts_value(), format.pointee.duration > 0
    else { return nil }
    return splay_av_rescale_q_rnd(
      format.pointee.duration, AVRational(num: 1, den: AV_TIME_BASE), AVRational(num: 1, den: Int32(sampleRate)),
      AV_ROUND_NEAR_INF)
  }

  /// The codec's bit rate when it declares one (an MP3 or AAC stream), in bits per second.
  var codecBitrate: Int? {
    let rate = format.pointee.streams[Int(index)]!.pointee.codecpar.pointee.bit_rate
    return rate > 0 ? Int(rate) : nil
  }

  /// The length estimated from the file's size and bit rate, for a raw stream without a declared length.
  var estimatedFrames: Int64 {
    let duration = format.pointee.duration
    guard duration != splay_av_nopts_value(), duration > 0 else { return 0 }
    return splay_av_rescale_q_rnd(
      duration, AVRational(num: 1, den: AV_TIME_BASE), AVRational(num: 1, den: Int32(sampleRate)), AV_ROUND_NEAR_INF)
  }

  /// Where the audio of a truncated file ends, in frames: at the timestamp of the first packet that the
  /// demuxer's index (an MP4's sample table) places past the end of the file. Nil when every packet is there, or
  /// the demuxer keeps no index.
  var truncatedFrames: Int64? {
    let stream = format.pointee.streams[Int(index)]!
    func isMissing(_ entry: Int32) -> Bool {
      guard let entry = splay_avformat_index_get_entry(stream, entry) else { return false }
      return entry.pointee.pos + Int64(entry.pointee.size) > fileSize
    }
    let count = splay_avformat_index_get_entries_count(stream)
    // A URL's size is not known: its index cannot tell what is missing.
    guard fileSize >= 0, count > 0, isMissing(count - 1) else { return nil }
    var firstMissing = count - 1
    while firstMissing > 0, isMissing(firstMissing - 1) { firstMissing -= 1 }
    let entry = splay_avformat_index_get_entry(stream, firstMissing)!
    return max(0, frames(of: entry.pointee.timestamp, from: startTime))
  }
}
