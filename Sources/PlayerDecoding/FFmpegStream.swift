import CFFmpeg
import PlayerCore

#if canImport(Glibc)
  import Glibc
#endif

/// One audio stream of a file open in FFmpeg: the demuxer, the decoder, the converter to interleaved 32-bit
/// floats, and the decoded frames not read yet. It owns the FFmpeg objects and frees them when it goes.
///
/// Positions are frames from the start of the track on the container's timeline: a decoded frame's timestamp,
/// less the stream's start time, at the sample rate. An MP4 edit list puts the encoder delay (AAC's 1024 or 2112
/// priming frames) before 0 there: FFmpeg drops it when it decodes the first packet, and after a seek this stream
/// drops whatever lies before the target, so a straight read and a seek agree on every frame's position.
/// Timestamps anchor the position when decoding begins (at the start, after a seek); after that the frames are
/// taken as contiguous, unless a timestamp jumps ahead by more than two of its ticks and at most a second (a
/// damaged packet was skipped: its place is filled with silence, so later positions stay true). A jump back, or
/// further ahead, is taken for a broken timestamp and ignored, so that no audio is dropped or replaced by a long
/// silence. Matroska counts in milliseconds: there a seek is exact to within a millisecond, not a frame.
///
/// Sendable without the compiler's proof: FFmpeg's objects belong to no thread, and ``FFmpegDecoder`` keeps the
/// stream behind a lock, so that one thread at a time uses it.
struct FFmpegStream: ~Copyable, @unchecked Sendable {
  /// The demuxer, which also holds the file's tags and length.
  let format: UnsafeMutablePointer<AVFormatContext>
  private var io: UnsafeMutablePointer<AVIOContext>?
  private var codec: UnsafeMutablePointer<AVCodecContext>?
  private var packet: UnsafeMutablePointer<AVPacket>?
  private var frame: UnsafeMutablePointer<AVFrame>?
  private var converter = FFmpegConverter()

  /// The stream's index in the file.
  let index: Int32
  /// The unit of the stream's timestamps.
  let timeBase: AVRational
  /// The timestamp of position 0.
  let startTime: Int64
  /// Frames per second (also of the output: nothing is resampled).
  let sampleRate: Int
  /// Interleaved channels per frame.
  let channels: Int
  /// The size of the file when it was opened, in bytes; -1 for a URL.
  let fileSize: Int64
  /// A file's descriptor or a URL's connection.
  let source: Source
  /// Frames decoded before a seek's target, so that the codec's state is right at the target: two codec
  /// frames (AAC needs one packet of pre-roll, the MDCT overlap) or the codec's own pre-roll (Opus: 80 ms).
  private let preroll: Int64

  /// Decoded frames, interleaved: `pending[0..<channels]` is frame `pendingStart`, and frames up to
  /// `pendingEnd` are there.
  private var pending: [Float] = []
  private var pendingStart: Int64 = 0
  private var pendingEnd: Int64 = 0
  /// The frame the next read returns.
  private(set) var position: Int64 = 0
  /// The next decoded frame's timestamp sets the position of what follows (decoding began, or a seek was made).
  private var anchoring = true
  /// A seek landed after its target once already, and the stream went back to the start of the file.
  private var rewound = false
  /// The demuxer has no more packets (the end of the file, or where a truncated one stops) and the decoder was
  /// asked for what it holds.
  private(set) var draining = false
  /// ICY titles received and not yet placed on the timeline, with the byte each begins at.
  private var unplacedTitles: [(offset: Int64, title: String)] = []
  /// ICY titles placed at the frame where the audio of their first packet begins, not taken yet.
  var titleChanges: [TitleChange] = []

  /// Opens the audio stream of `path` that FFmpeg ranks best, and its decoder.
  init(path: String) throws(DecoderOpenFailure) {
    if let problem = splay_ffmpeg_load() {
      throw Self.failure(.refused, path, String(cString: problem))
    }
    var status = stat()
    if stat(path, &status) != 0 { throw .file(errno: errno, path: path) }
    guard (status.st_mode & S_IFMT) == S_IFREG else {
      throw DecoderOpenFailure(stage: .file, error: .notAFile(path: path))
    }
    if status.st_size == 0 { throw Self.failure(.refused, path, "the file is empty") }
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw .file(errno: errno, path: path) }
    try self.init(io: splay_ffmpeg_io_open(fd), source: .file, size: Int64(status.st_size), name: path)
  }

  /// Opens the audio of `url` (http or https) with FFmpeg's protocol; connecting and each read may take up to
  /// `timeout` seconds.
  init(url: String, timeout: Double) throws(DecoderOpenFailure) {
    if let problem = splay_ffmpeg_load() {
      throw Self.failure(.refused, url, String(cString: problem))
    }
    var error: Int32 = 0
    guard let io = splay_ffmpeg_url_open(url, Int64(timeout * 1e6), &error) else {
      throw DecoderOpenFailure(stage: .file, error: Self.streamFailure(url, error, timeout: timeout))
    }
    try self.init(io: io, source: .url, size: -1, name: url)
  }

  /// Where the bytes come from, which decides how the context is freed.
  enum Source {
    case file, url
  }

  /// Opens the audio stream that FFmpeg ranks best in what `io` reads, and its decoder; `name` is the path or
  /// URL, for probing (an extension) and messages. The context is freed here when opening fails.
  private init(
    io opened: UnsafeMutablePointer<AVIOContext>?, source: Source, size: Int64, name path: String
  ) throws(DecoderOpenFailure) {
    // Each object is freed here unless the stream took it.
    var io = opened
    var format: UnsafeMutablePointer<AVFormatContext>?
    var codec: UnsafeMutablePointer<AVCodecContext>?
    var packet: UnsafeMutablePointer<AVPacket>?
    var frame: UnsafeMutablePointer<AVFrame>?
    var taken = false
    defer {
      if !taken {
        splay_av_frame_free(&frame)
        splay_av_packet_free(&packet)
        splay_avcodec_free_context(&codec)
        splay_avformat_close_input(&format)
        Self.free(&io, source)
      }
    }
    guard io != nil, let allocated = splay_avformat_alloc_context() else {
      throw Self.failure(.refused, path, "out of memory")
    }
    allocated.pointee.pb = io
    allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    if source == .url, let io, splay_ffmpeg_url_seekable(io) == 0 {
      // A live stream's bytes come in real time after the station's burst: FFmpeg's default probing (up to 5 MB,
      // or 5 s of analysis) waited for bytes not sent yet, 100 ms on a live WAV station. A file keeps the
      // default: an MP3's cover art can be larger than this.
      allocated.pointee.probesize = 64 * 1024
      allocated.pointee.max_analyze_duration = 200_000
    }
    format = allocated
    // The path is a hint for probing (its extension); the bytes come from `io`. FFmpeg frees the context when
    // this fails.
    // What a stream's content may make FFmpeg open besides it (an HLS playlist names more URLs): the web, never
    // a local file.
    var options: OpaquePointer?
    if source == .url { _ = splay_av_dict_set(&options, "protocol_whitelist", "http,https,tls,tcp,crypto", 0) }
    var result = splay_avformat_open_input(&format, path, nil, &options)
    splay_av_dict_free(&options)
    guard result >= 0, let opened = format else {
      throw Self.failure(.unrecognised, path, "not a media file FFmpeg recognises (\(Self.text(result)))")
    }
    result = splay_avformat_find_stream_info(opened, nil)
    guard result >= 0 else {
      throw Self.failure(.unrecognised, path, "FFmpeg cannot read its streams (\(Self.text(result)))")
    }
    let index = try Self.audioStream(in: opened, path: path)
    let stream = opened.pointee.streams[Int(index)]!
    let parameters = stream.pointee.codecpar!
    let name = Self.codecName(parameters.pointee)
    guard let decoder = splay_avcodec_find_decoder(parameters.pointee.codec_id) else {
      throw Self.failure(.refused, path, "unsupported codec \(name)")
    }
    // FFmpeg will not open an experimental decoder (Sonic) unless told to: splay does not.
    if decoder.pointee.capabilities & AV_CODEC_CAP_EXPERIMENTAL != 0 {
      throw Self.failure(.refused, path, "unsupported codec \(name) (FFmpeg's decoder is experimental)")
    }
    codec = splay_avcodec_alloc_context3(decoder)
    packet = splay_av_packet_alloc()
    frame = splay_av_frame_alloc()
    guard let context = codec, packet != nil, frame != nil else {
      throw Self.failure(.refused, path, "out of memory")
    }
    result = splay_avcodec_parameters_to_context(context, parameters)
    context.pointee.pkt_timebase = stream.pointee.time_base
    if result >= 0 { result = splay_avcodec_open2(context, decoder, nil) }
    guard result >= 0 else {
      throw Self.failure(.malformed, path, "FFmpeg cannot start decoding \(name) (\(Self.text(result)))")
    }
    let channels = Int(context.pointee.ch_layout.nb_channels)
    let rate = Int(context.pointee.sample_rate)
    guard (1...32).contains(channels) else {
      throw Self.failure(.refused, path, "\(channels) channels (1 to 32 are supported)")
    }
    guard (1000...768_000).contains(rate) else {
      throw Self.failure(.refused, path, "a sample rate of \(rate) Hz")
    }

    self.format = opened
    self.io = io
    self.codec = codec
    self.packet = packet
    self.frame = frame
    self.index = index
    self.timeBase = stream.pointee.time_base
    let start = stream.pointee.start_time
    self.startTime = start == splay_av_nopts_value() ? 0 : start
    self.sampleRate = rate
    self.channels = channels
    self.fileSize = size
    self.source = source
    let codecFrame = Int64(max(context.pointee.frame_size, 1024))
    self.preroll = 2 * codecFrame + Int64(max(parameters.pointee.seek_preroll, 0))
    taken = true
  }

  deinit {
    // A deinit sees the stored properties as constants; FFmpeg's free functions take them by address.
    var frame = frame
    splay_av_frame_free(&frame)
    var packet = packet
    splay_av_packet_free(&packet)
    var codec = codec
    splay_avcodec_free_context(&codec)
    var format: UnsafeMutablePointer<AVFormatContext>? = format
    splay_avformat_close_input(&format)
    var io = io
    Self.free(&io, source)
  }

  private static func free(_ io: inout UnsafeMutablePointer<AVIOContext>?, _ source: Source) {
    switch source {
    case .file: splay_ffmpeg_io_free(&io)
    case .url: splay_ffmpeg_url_close(&io)
    }
  }

  /// Copies up to `count` frames into `buffer` from ``position`` on, stopping at frame `limit`; returns how many
  /// were copied: fewer only at `limit` or where the decodable audio ends.
  mutating func read(into buffer: UnsafeMutableBufferPointer<Float>, frames count: Int, limit: Int64) -> Int {
    var done = 0
    while done < count, position < limit {
      if position >= pendingEnd {
        guard decodeNext() else { break }
        continue
      }
      let wanted = Int64(count - done)
      let destination = done * channels
      let copied: Int64
      if position < pendingStart {
        // A gap in the file's timeline (a damaged packet was skipped): silence, so later positions stay true.
        copied = min(wanted, pendingStart - position, limit - position)
        buffer.baseAddress!.advanced(by: destination).update(repeating: 0, count: Int(copied) * channels)
      } else {
        copied = min(wanted, pendingEnd - position, limit - position)
        let offset = Int(position - pendingStart) * channels
        pending.withUnsafeBufferPointer { source in
          buffer.baseAddress!.advanced(by: destination).update(
            from: source.baseAddress!.advanced(by: offset), count: Int(copied) * channels)
        }
      }
      done += Int(copied)
      position += copied
    }
    return done
  }

  /// Makes the next read start at `target`: seeks the demuxer to a packet at least ``preroll`` frames before it
  /// (or to the start of the file), and lets the decoding that follows drop what comes before `target`. False
  /// when the demuxer cannot seek; the stream is then where the last decodable audio ended.
  mutating func seek(to target: Int64) -> Bool {
    rewound = false
    let before = target - preroll
    let status: Int32
    if before <= 0 {
      status = rewind()
    } else {
      let timestamp = startTime + timestamp(ofFrame: before)
      let sought = splay_av_seek_frame(format, index, timestamp, AVSEEK_FLAG_BACKWARD)
      status = sought >= 0 ? sought : rewind()
    }
    restart(at: target)
    return status >= 0
  }

  /// Seeks the demuxer to the first packet of the file (an MP4's priming packet included).
  private func rewind() -> Int32 {
    splay_avformat_seek_file(format, index, .min, .min, .min, 0)
  }

  /// Forgets the decoder's state and what was decoded, to decode from the demuxer's new place on.
  private mutating func restart(at target: Int64) {
    splay_avcodec_flush_buffers(codec)
    draining = false
    anchoring = true
    position = target
    pendingStart = target
    pendingEnd = target
  }

  /// Decodes the next frame into `pending`; false at the end of the decodable audio.
  ///
  /// A packet the decoder refuses (damaged) is skipped and the next one tried; the demuxer's first error (the
  /// end of the file, or where a truncated file stops) drains the decoder and ends the stream there.
  mutating func decodeNext() -> Bool {
    while true {
      let received = splay_avcodec_receive_frame(codec, frame)
      if received == 0 {
        if take() { return true }
        continue
      }
      if received == splay_averror_eof() || draining { return false }
      // EAGAIN (the decoder wants a packet) or a damaged packet's error: on to the next packet.
      if splay_av_read_frame(format, packet) < 0 {
        draining = true
        _ = splay_avcodec_send_packet(codec, nil)
        continue
      }
      if packet!.pointee.stream_index == index {
        if source == .url { placeTitles(before: packet!.pointee.pos) }
        _ = splay_avcodec_send_packet(codec, packet)
      }
      splay_av_packet_unref(packet)
    }
  }

  /// Places the ICY titles that begin at or before byte `position` (the packet about to be decoded) at the
  /// frame where that packet's audio begins: the end of what was decoded so far.
  private mutating func placeTitles(before position: Int64) {
    unplacedTitles += takeTitles()
    guard position >= 0 else { return }
    while let first = unplacedTitles.first, first.offset <= position {
      unplacedTitles.removeFirst()
      titleChanges.append(TitleChange(frame: pendingEnd, title: first.title))
    }
  }

  /// Converts the decoded frame into `pending` and places it on the timeline; false when it holds nothing usable.
  private mutating func take() -> Bool {
    let frame = frame!
    let converted = converter.convert(frame, channels: channels, rate: sampleRate, into: &pending)
    guard converted > 0 else { return false }
    var start = pendingEnd
    let stamp = frame.pointee.best_effort_timestamp
    if stamp != splay_av_nopts_value() {
      let stamped = frames(of: stamp, from: startTime)
      let gap = stamped - start
      if anchoring || (gap > jumpTolerance && gap <= Int64(sampleRate)) { start = stamped }
    }
    if anchoring, start > position, !rewound {
      // The seek landed after its target (a demuxer whose index is an estimate): decode from the start instead.
      rewound = true
      _ = rewind()
      let target = position
      restart(at: target)
      return false
    }
    anchoring = false
    pendingStart = start
    pendingEnd = start + Int64(converted)
    return true
  }

  /// Timestamps that differ from the frame count by up to two of their ticks are taken as rounding (Matroska
  /// counts milliseconds: 44.1 frames at 44.1 kHz), not as a gap.
  private var jumpTolerance: Int64 {
    let tick = (Int64(sampleRate) * Int64(timeBase.num) + Int64(timeBase.den) - 1) / Int64(timeBase.den)
    return max(2, 2 * tick)
  }

  /// `timestamp` (in the stream's time base) as frames from `origin`, to the nearest frame.
  func frames(of timestamp: Int64, from origin: Int64) -> Int64 {
    splay_av_rescale_q_rnd(
      timestamp - origin, timeBase, AVRational(num: 1, den: Int32(sampleRate)), AV_ROUND_NEAR_INF)
  }

  /// The timestamp (in the stream's time base, from the start time) at or before frame `frame`.
  private func timestamp(ofFrame frame: Int64) -> Int64 {
    splay_av_rescale_q_rnd(frame, AVRational(num: 1, den: Int32(sampleRate)), timeBase, AV_ROUND_DOWN)
  }
}
