import CFFmpeg
import PlayerCore

/// Converts decoded FFmpeg frames to interleaved 32-bit floats with swresample: the sample format only, at the
/// frame's own rate and in its own channel order (no resampling, no remixing).
///
/// The SwrContext is made for the first frame and made again when a frame's format, rate or channel layout
/// differs from the one before (an AAC stream may change them mid-file, rarely).
struct FFmpegConverter: ~Copyable {
  private var context: OpaquePointer?
  /// What `context` converts from.
  private var input: (format: Int32, rate: Int32, layout: AVChannelLayout)?

  init() {}

  deinit {
    if var layout = input?.layout { splay_av_channel_layout_uninit(&layout) }
    var context = context
    splay_swr_free(&context)
  }

  /// Converts `frame` into `output` (grown when needed) as interleaved frames of `channels` channels at `rate`;
  /// returns how many frames it holds, 0 when the frame cannot be converted.
  mutating func convert(
    _ frame: UnsafeMutablePointer<AVFrame>, channels: Int, rate: Int, into output: inout [Float]
  ) -> Int {
    let count = Int(frame.pointee.nb_samples)
    guard count > 0, prepare(for: frame.pointee, channels: channels, rate: rate) else { return 0 }
    let capacity = Int(splay_swr_get_out_samples(context, Int32(count)))
    if output.count < capacity * channels { output = [Float](repeating: 0, count: capacity * channels) }
    let converted = output.withUnsafeMutableBytes { bytes -> Int32 in
      var destination = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
      let source = UnsafeMutableRawPointer(frame.pointee.extended_data)?.assumingMemoryBound(
        to: UnsafePointer<UInt8>?.self)
      return splay_swr_convert(context, &destination, Int32(capacity), source, Int32(count))
    }
    return max(Int(converted), 0)
  }

  /// Makes `context` convert `frame`'s sample format and layout; false when swresample cannot.
  private mutating func prepare(for frame: AVFrame, channels: Int, rate: Int) -> Bool {
    var layout = frame.ch_layout
    if let input, input.format == frame.format, input.rate == frame.sample_rate,
      withUnsafePointer(to: input.layout, { splay_av_channel_layout_compare($0, &layout) }) == 0
    {
      return true
    }
    if var old = input?.layout { splay_av_channel_layout_uninit(&old) }
    input = nil
    splay_swr_free(&context)
    var from = AVChannelLayout()
    if layout.order == AV_CHANNEL_ORDER_UNSPEC || splay_av_channel_layout_copy(&from, &layout) < 0 {
      splay_av_channel_layout_default(&from, layout.nb_channels)
    }
    // The output keeps the input's channel order, so that swresample only converts and interleaves. Only a frame
    // whose channel count or rate differs from the stream's (never seen) is mixed to the stream's default layout
    // and resampled, so that what comes out stays in the stream's format.
    var to = AVChannelLayout()
    if Int(from.nb_channels) == channels {
      _ = splay_av_channel_layout_copy(&to, &from)
    } else {
      splay_av_channel_layout_default(&to, Int32(channels))
    }
    defer { splay_av_channel_layout_uninit(&to) }
    var made = splay_swr_alloc_set_opts2(
      &context, &to, AV_SAMPLE_FMT_FLT, Int32(rate), &from, AVSampleFormat(frame.format), frame.sample_rate, 0,
      nil)
    if made >= 0 { made = splay_swr_init(context) }
    guard made >= 0 else {
      splay_swr_free(&context)
      splay_av_channel_layout_uninit(&from)
      return false
    }
    input = (frame.format, frame.sample_rate, from)
    return true
  }
}
