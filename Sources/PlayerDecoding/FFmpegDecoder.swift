import CFFmpeg
import Futures
import PlayerCore

/// Decodes what libsndfile cannot, with FFmpeg: M4A/MP4 (AAC, ALAC), Matroska/WebM, WMA, AC-3 and the rest of
/// FFmpeg's formats, recognised by content.
///
/// The audio comes out at the file's own rate and channel count (swresample only converts the sample format and
/// interleaves), from the first frame of the track to its declared length: an AAC file's encoder delay and
/// padding, which its MP4 edit list declares, are not played, so a gapless AAC file decodes to the frames that
/// were encoded. (The edit list counts in the movie's timescale: FFmpeg writes milliseconds by default, so a
/// length can be a frame longer than what was encoded; iTunes and `-movie_timescale 44100` files are exact.)
/// Seeks are sample-exact: the decoder starts a few codec frames before the target and drops what comes before
/// it. A file that ends early (truncated, or damaged past some point) plays up to its last decodable frame and
/// ends there without an error (a truncated M4A declares that length, its index tells where the packets stop);
/// a damaged packet in the middle is skipped and its frames are silent.
///
/// FFmpeg is loaded the first time a file is opened (see `CFFmpeg.h` for why it is not linked); without it
/// installed, every open fails with a message that says so.
public final class FFmpegDecoder: AudioDecoder {
  /// The format, length and tags read when the file was opened.
  public let info: TrackInfo
  /// The open stream; one thread at a time reads or seeks it.
  private let stream: Lock<FFmpegStream>
  /// Where reading stops: the declared length, or no limit when FFmpeg could only estimate it (raw ADTS).
  private let limit: Int64
  /// A URL's connection, to abandon without the lock; nil for a file.
  private let connection: FFmpegStream.Connection?

  /// Opens `path` for decoding.
  ///
  /// Refused with ``PlayerError/unsupportedFormat(path:detail:)`` when FFmpeg does not recognise the content,
  /// finds no audio stream, has no decoder for its codec (the detail names it: `unsupported codec wmav2`), or
  /// cannot decode a single frame of it; a missing file, a directory or a FIFO get the errors of
  /// ``SndfileDecoder``, before anything reads them.
  public convenience init(path: String) throws(PlayerError) {
    do {
      try self.init(opening: path)
    } catch {
      throw error.error
    }
  }

  /// Opens `url` (http or https): a file the server serves in ranges plays and seeks as a local one; a live
  /// stream (internet radio) has no length, cannot seek, and its ICY `StreamTitle`s become title changes at the
  /// frames they begin at (``takeTitleChanges()``), its `icy-name` the album. Connecting and each read may take
  /// `timeout` seconds; a dropped live stream is reconnected by FFmpeg's protocol.
  public convenience init(url: String, timeout: Double) throws(PlayerError) {
    do {
      try self.init(stream: try FFmpegStream(url: url, timeout: timeout), path: url)
    } catch {
      throw error.error
    }
  }

  /// Opens `path`, with the stage a failure came at, for ``StandardDecoderFactory``.
  convenience init(opening path: String) throws(DecoderOpenFailure) {
    try self.init(stream: try FFmpegStream(path: path), path: path)
  }

  private init(stream opened: consuming FFmpegStream, path: String) throws(DecoderOpenFailure) {
    var stream = opened
    connection = stream.connection
    // Random bytes can pass for a stream (a FLAC stream named by the extension, an MP3 frame sync by chance):
    // a file is taken only once a frame of it decodes. The frame stays for the first read.
    guard stream.decodeNext() else {
      throw DecoderOpenFailure(
        stage: .malformed, error: .unsupportedFormat(path: path, detail: "FFmpeg decodes no audio from it (damaged?)"))
    }
    // A truncated M4A declares the length it can still play, so that the player never confirms a position its
    // audio did not reach.
    let live = stream.isLive
    let length = [stream.declaredFrames, stream.truncatedFrames].compactMap { $0 }.min()
    limit = length ?? .max
    let frames = live ? 0 : length ?? stream.estimatedFrames
    let seconds = Double(frames) / Double(stream.sampleRate)
    var damage: String?
    if let declared = stream.declaredFrames, let truncated = stream.truncatedFrames, truncated < declared {
      let rate = Double(stream.sampleRate)
      damage =
        "the audio ends at \(SndfileDecoder.clockText(Double(truncated) / rate)) of the "
        + "\(SndfileDecoder.clockText(Double(declared) / rate)) its header declares (truncated)"
    }
    // A station names itself in its headers, and each song in the stream: the song that plays first is the
    // title from the start, the later ones come through ``takeTitleChanges()``.
    let icy = stream.icyHeaders
    let first = stream.titleChanges.first { $0.frame == 0 }
    stream.titleChanges.removeAll { $0.frame == 0 }
    let bitrate =
      stream.fileSize > 0 && seconds > 0.1
      ? Int((Double(stream.fileSize) * 8 / seconds).rounded())
      : icy["icy-br"].flatMap { Int($0) }.map { $0 * 1000 } ?? stream.codecBitrate
    info = TrackInfo(
      path: path, format: Self.formatName(container: stream.containerName, codec: stream.codecName),
      sampleRate: stream.sampleRate, channels: stream.channels, frames: frames,
      title: first?.title ?? stream.tag("title"), artist: stream.tag("artist"),
      album: icy["icy-name"] ?? stream.tag("album"), trackNumber: stream.tag("track"), date: stream.tag("date"),
      bitDepth: stream.bitDepth, bitrate: bitrate, damage: damage, isLive: live)
    self.stream = Lock(stream)
  }

  /// Ends a wait for the network now, without the stream's lock (the read that waits holds it).
  public func abandon() {
    if let connection { splay_ffmpeg_url_abandon(connection.io) }
  }

  /// A stream that dropped says so once the read that reconnected it returned, and whether that worked.
  public func takeNotices() -> [String] {
    stream.withLock { $0.takeReconnectNotice(gaveUp: $0.draining) }.map { [$0] } ?? []
  }

  /// The ICY titles decoded since the last call, each at the frame its audio begins at.
  public func takeTitleChanges() -> [TitleChange] {
    stream.withLock { stream in
      defer { stream.titleChanges.removeAll() }
      return stream.titleChanges
    }
  }

  /// Reads interleaved float frames; 0 at the end of the track, or where the decodable audio of a truncated or
  /// damaged file ends.
  public func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    precondition(buffer.count >= frames * info.channels, "buffer too small for \(frames) frames")
    return stream.withLock { $0.read(into: buffer, frames: frames, limit: limit) }
  }

  /// Seeks to an exact frame, decoding forward from a packet before it; a live stream refuses.
  @discardableResult
  public func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    if info.isLive {
      // Where it already is (a prepared stream is rewound to 0 before it plays) is no seek.
      if stream.withLock({ $0.position }) == frame { return frame }
      throw .invalidState(command: "seek", state: "in a live stream")
    }
    let target = min(max(frame, 0), info.frames)
    let sought = stream.withLock { $0.seek(to: target) }
    guard sought else { throw .unsupportedFormat(path: info.path, detail: "cannot seek to frame \(target)") }
    return target
  }

  /// `container/codec` for the track's format (`MP4/AAC`, `MP4/ALAC`, `Matroska/Opus`), or the codec alone when
  /// the container is the codec's own raw stream (`FLAC`, `AC-3`).
  static func formatName(container: String, codec: String) -> String {
    let codecs = [
      "aac": "AAC", "alac": "ALAC", "mp3": "MP3", "mp2": "MP2", "flac": "FLAC", "vorbis": "Vorbis", "opus": "Opus",
      "ac3": "AC-3", "eac3": "E-AC-3", "dts": "DTS", "truehd": "TrueHD", "wmav1": "WMA", "wmav2": "WMA",
      "wmapro": "WMA Pro", "wmalossless": "WMA Lossless", "ape": "APE", "wavpack": "WavPack", "tta": "TTA",
    ]
    let codecName = codecs[codec] ?? codec.uppercased()
    // A demuxer's name lists the formats it reads (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`).
    let names = container.split(separator: ",").map(String.init)
    let containerName: String
    switch names.first ?? container {
    case "mov": containerName = "MP4"
    case "matroska": containerName = "Matroska"
    case "asf": containerName = "ASF"
    case "ogg": containerName = "Ogg"
    case "wav": containerName = "WAV"
    case "aiff": containerName = "AIFF"
    case "caf": containerName = "CAF"
    case "aac": containerName = "ADTS"
    case let name where names.contains(codec) || name == codec: return codecName
    case let name: containerName = name.uppercased()
    }
    return "\(containerName)/\(codecName)"
  }
}
