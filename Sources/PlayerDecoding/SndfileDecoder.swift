import CSndfile
import Futures
import PlayerCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Decodes WAV, FLAC, Ogg Vorbis, Opus and MP3 with libsndfile, recognising the format by content, never by
/// the file name's extension.
public final class SndfileDecoder: AudioDecoder {
  /// The format, length and tags read when the file was opened.
  public let info: TrackInfo
  /// The open file and where the next read starts.
  private struct Handle {
    /// The SNDFILE pointer's bit pattern (0 once closed): an integer, so the lock's contents are plainly
    /// Sendable.
    var bits: UInt
    /// The frame the next read starts at.
    var frame: Int64 = 0
  }

  private let handle: Lock<Handle>
  /// How far before a target a seek starts and decodes forward: libsndfile's Vorbis seek (1.2.0) lands off the
  /// target and decodes its first block without the previous one's overlap, so it seeks a longest block
  /// (8,192 frames) early; 0 for the formats it seeks exactly.
  private let seekPreroll: Int64

  /// Opens `path` for decoding.
  ///
  /// The path is checked with `stat` before anything reads it, so a directory, a FIFO (which would block an
  /// `open`) or a device gets ``PlayerError/notAFile(path:)`` at once; the file is then opened once and handed
  /// to libsndfile by descriptor, so what was checked is what is read. A file shorter than its header declares
  /// opens declaring the frames it holds, with the reason in ``TrackInfo/damage``, unless `deferringLengthCheck` asks the caller to make that check
  /// itself with ``checkLength()``: `splay play` starts its first file's stream while the check runs, and
  /// lets it play early only once it passed.
  public convenience init(path: String, deferringLengthCheck: Bool = false) throws(PlayerError) {
    do {
      try self.init(opening: path, deferringLengthCheck: deferringLengthCheck)
    } catch {
      throw error.error
    }
  }

  /// Opens `path`, with the stage a failure came at, for ``StandardDecoderFactory``: FFmpeg is worth trying on a
  /// file libsndfile could not open, not on one it opened and found truncated.
  init(opening path: String, deferringLengthCheck: Bool) throws(DecoderOpenFailure) {
    func refused(_ detail: String) -> DecoderOpenFailure {
      DecoderOpenFailure(stage: .refused, error: .unsupportedFormat(path: path, detail: detail))
    }
    var st = stat()
    if stat(path, &st) != 0 {
      throw .file(errno: errno, path: path)
    }
    guard (st.st_mode & S_IFMT) == S_IFREG else {
      throw DecoderOpenFailure(stage: .file, error: .notAFile(path: path))
    }
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw .file(errno: errno, path: path) }
    var sfinfo = SF_INFO()
    guard var file = sf_open_fd(fd, Int32(SFM_READ), &sfinfo, 1) else {
      if st.st_size == 0 { throw refused("the file is empty") }
      let unrecognised = sf_error(nil) == Int32(SF_ERR_UNRECOGNISED_FORMAT)
      throw DecoderOpenFailure(
        stage: unrecognised ? .unrecognised : .malformed,
        error: .unsupportedFormat(path: path, detail: String(cString: sf_strerror(nil))))
    }
    guard sfinfo.channels >= 1, sfinfo.channels <= 32 else {
      sf_close(file)
      throw refused("\(sfinfo.channels) channels (1 to 32 are supported)")
    }
    guard sfinfo.samplerate >= 1000, sfinfo.samplerate <= 768_000 else {
      sf_close(file)
      throw refused("a sample rate of \(sfinfo.samplerate) Hz")
    }
    // A file whose length nobody knows cannot be played honestly (no duration, no seek to a percentage); one
    // that ends early plays as far as its audio goes, and `read` says where that was.
    guard sfinfo.frames != sf_count_t(Int64.max) else {
      sf_close(file)
      throw refused("the file's length is unknown (it may be truncated or damaged)")
    }
    var frames = max(0, Int64(sfinfo.frames))
    var damage: String?
    if !deferringLengthCheck, Self.lengthProblem(file, frames: frames, rate: Int64(sfinfo.samplerate)) != nil {
      // A failed seek can leave libFLAC's decoder unable to read on: the file is counted and played through
      // handles of their own, opened afresh.
      sf_close(file)
      var again = SF_INFO()
      let playable = Self.playableFrames(path, declared: frames, channels: Int(sfinfo.channels))
      let reopened = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
      guard reopened >= 0, let fresh = sf_open_fd(reopened, Int32(SFM_READ), &again, 1) else {
        if reopened >= 0 { close(reopened) }
        throw refused("the file could not be opened again")
      }
      file = fresh
      let rate = Double(sfinfo.samplerate)
      damage =
        "the audio ends at \(Self.clockText(Double(playable) / rate)) of the \(Self.clockText(Double(frames) / rate)) "
        + "its header declares (truncated)"
      frames = playable
    }
    func tag(_ kind: Int32) -> String? {
      guard let cString = sf_get_string(file, kind) else { return nil }
      let text = String(cString: cString)
      return text.isEmpty ? nil : text
    }
    let seconds = Double(frames) / Double(sfinfo.samplerate)
    info = TrackInfo(
      path: path, format: Self.formatName(sfinfo.format), sampleRate: Int(sfinfo.samplerate),
      channels: Int(sfinfo.channels), frames: frames,
      title: tag(Int32(SF_STR_TITLE)), artist: tag(Int32(SF_STR_ARTIST)), album: tag(Int32(SF_STR_ALBUM)),
      trackNumber: tag(Int32(SF_STR_TRACKNUMBER)), date: tag(Int32(SF_STR_DATE)),
      bitDepth: Self.bitDepth(sfinfo.format),
      bitrate: seconds > 0.1 ? Int((Double(st.st_size) * 8 / seconds).rounded()) : nil, damage: damage)
    seekPreroll = Int(sfinfo.format) & Int(SF_FORMAT_SUBMASK) == Int(SF_FORMAT_VORBIS) ? 8192 : 0
    handle = Lock(Handle(bits: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(file)))))
  }

  deinit {
    handle.withLock { handle in
      if let file = OpaquePointer(bitPattern: handle.bits) { sf_close(file) }
      handle.bits = 0
    }
  }

  /// Throws for a file that ends before the length its header declares (truncated): the early start plays
  /// only whole files (a damaged one is opened again, and declares what it holds). Safe beside reads on other threads: it holds the file while it looks, and
  /// leaves the next read where it was.
  public func checkLength() throws(PlayerError) {
    let problem: String? = handle.withLock { handle in
      guard let file = OpaquePointer(bitPattern: handle.bits) else { return nil }
      let problem = Self.lengthProblem(file, frames: info.frames, rate: Int64(info.sampleRate))
      if handle.frame != 0 { _ = move(file, to: handle.frame) }
      return problem
    }
    if let problem { throw .unsupportedFormat(path: info.path, detail: problem) }
  }

  /// Reads interleaved float frames; a decoding error mid-file ends the track with an error naming the file.
  ///
  /// The end of the data more than a second before the declared length is an error too: the file was
  /// truncated after it was opened (the check at open time cannot see that), and a silent early end would
  /// let the player confirm a position the audio never reached. (A second of slack, as at open time.)
  public func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    precondition(buffer.count >= frames * info.channels, "buffer too small for \(frames) frames")
    return try readFrames(frames) { file in
      buffer.baseAddress.map { sf_readf_float(file, $0, sf_count_t(frames)) } ?? 0
    }
  }

  /// 16-bit PCM (``nativeSampleFormat``): the file's own samples, exactly; anything else rounded by libsndfile.
  public func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws(PlayerError) -> Int {
    precondition(buffer.count >= frames * info.channels, "buffer too small for \(frames) frames")
    return try readFrames(frames) { file in
      buffer.baseAddress.map { sf_readf_short(file, $0, sf_count_t(frames)) } ?? 0
    }
  }

  /// `.int16` for 16-bit PCM (WAV, FLAC, AIFF): those samples reach the server as they are in the file.
  public var nativeSampleFormat: DecodedSampleFormat { info.bitDepth == 16 ? .int16 : .float32 }

  /// Reads with `readf` (which returns the frames read, or a negative error) and checks the end.
  private func readFrames(_ frames: Int, _ readf: (OpaquePointer) -> sf_count_t) throws(PlayerError) -> Int {
    let (result, reached): (Int64, Int64) = handle.withLock { handle in
      guard let file = OpaquePointer(bitPattern: handle.bits) else { return (0, handle.frame) }
      let result = Int64(readf(file))
      if result > 0 { handle.frame += result }
      return (result, handle.frame)
    }
    if result < 0 { throw .unsupportedFormat(path: info.path, detail: "read failed") }
    if result == 0, frames > 0, reached < info.frames - Int64(info.sampleRate) {
      throw .unsupportedFormat(
        path: info.path,
        detail: "the audio ends at \(Self.clockText(Double(reached) / Double(info.sampleRate))) of "
          + "\(Self.clockText(info.duration)) (the file is truncated or damaged)")
    }
    return Int(result)
  }

  /// Seeks to an exact frame (libsndfile decodes forward from the previous key point where it must; for Vorbis
  /// this decodes forward itself from ``seekPreroll`` frames before).
  @discardableResult
  public func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    let target = min(max(frame, 0), info.frames)
    let reached: Int64 = handle.withLock { handle in
      guard let file = OpaquePointer(bitPattern: handle.bits) else { return -1 }
      let reached = move(file, to: target)
      if reached >= 0 { handle.frame = reached }
      return reached
    }
    // Short of the target: the audio ended (or failed to decode) on the way there, which must fail the seek
    // rather than confirm a position the next read does not start at.
    guard reached == target else {
      let detail = reached < 0 ? "" : " (the audio ends at frame \(reached))"
      throw .unsupportedFormat(path: info.path, detail: "cannot seek to frame \(target)" + detail)
    }
    return reached
  }

  /// Moves `file` to `target` (lock held): libsndfile's own seek, or for Vorbis its seek to ``seekPreroll``
  /// frames before and decoding forward. Returns the frame reached, short of `target` when the audio ended on
  /// the way, or -1 when libsndfile cannot seek.
  private func move(_ file: OpaquePointer, to target: Int64) -> Int64 {
    let reached = Int64(sf_seek(file, sf_count_t(max(0, target - seekPreroll)), SEEK_SET))
    guard reached >= 0, reached < target else { return reached }
    return reached + Self.skip(file, frames: target - reached, channels: info.channels)
  }

  /// Decodes and drops up to `frames` frames; returns how many there were.
  private static func skip(_ file: OpaquePointer, frames: Int64, channels: Int) -> Int64 {
    withUnsafeTemporaryAllocation(of: Float.self, capacity: 1024 * channels) { scratch in
      var skipped: Int64 = 0
      while skipped < frames {
        let read = Int64(sf_readf_float(file, scratch.baseAddress!, sf_count_t(min(1024, frames - skipped))))
        guard read > 0 else { break }
        skipped += read
      }
      return skipped
    }
  }

  /// Why the length the file declares cannot be trusted, or nil when it can.
  ///
  /// A truncated file keeps the header of the whole file: libsndfile reports the full length (FLAC, MP3) or,
  /// for an Ogg stream cut before its last page, `SF_COUNT_MAX` frames (millions of years). Playing it would
  /// show a duration that is not true and end early without a word, so the file is refused when opened. The
  /// check is cheap: one seek to a second before the declared end and a one-frame read, which a truncated
  /// file cannot satisfy. A second of slack, because an MP3 without a gapless header declares a few
  /// thousand frames more than it decodes. Leaves the file at frame 0 (an MP3 decoded after this seek back
  /// can differ from a fresh decode by float rounding: at most 1.5e-7 on the fixtures, far below hearing).
  static func lengthProblem(_ file: OpaquePointer, frames: Int64, rate: Int64) -> String? {
    guard frames != Int64.max else { return "the file's length is unknown (it may be truncated or damaged)" }
    guard frames > 0 else { return nil }
    var frame = [Float](repeating: 0, count: 32)  // one frame of up to 32 channels
    let probe = max(0, frames - rate)
    let reached = sf_seek(file, sf_count_t(probe), SEEK_SET)
    let read = reached >= 0 ? sf_readf_float(file, &frame, 1) : 0
    _ = sf_seek(file, 0, SEEK_SET)
    guard read == 1 else {
      return "the file ends before the \(clockText(Double(frames) / Double(rate))) its header declares (truncated?)"
    }
    return nil
  }

  /// The frames a truncated file really holds, decoded from its start: a seek into a truncated FLAC can fail
  /// where the audio is still whole, so only reading tells. Paid only by damaged files (a FLAC decodes at
  /// hundreds of times real time).
  static func playableFrames(_ path: String, declared: Int64, channels: Int) -> Int64 {
    var info = SF_INFO()
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return 0 }
    guard let file = sf_open_fd(fd, Int32(SFM_READ), &info, 1) else {
      close(fd)
      return 0
    }
    defer { sf_close(file) }
    let chunk = 16_384
    var buffer = [Float](repeating: 0, count: chunk * channels)
    var end: Int64 = 0
    while end < declared {
      let read = Int64(sf_readf_float(file, &buffer, sf_count_t(chunk)))
      if read <= 0 { break }
      end += read
    }
    return min(end, declared)
  }

  /// `m:ss.mmm`, for messages about lengths.
  static func clockText(_ seconds: Double) -> String {
    let millis = Int64((seconds * 1000).rounded())
    let (minutes, rest) = millis.quotientAndRemainder(dividingBy: 60_000)
    let (whole, fraction) = rest.quotientAndRemainder(dividingBy: 1000)
    func padded(_ value: Int64, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(minutes):\(padded(whole, 2)).\(padded(fraction, 3))"
  }

  static func fileError(errno code: Int32, path: String) -> PlayerError {
    switch code {
    case ENOENT, ENOTDIR: .fileNotFound(path: path)
    case EACCES, EPERM: .permissionDenied(path: path)
    default: .unsupportedFormat(path: path, detail: String(cString: strerror(code)))
    }
  }

  /// Bits per stored sample of PCM and lossless encodings; nil for lossy ones, which have none.
  static func bitDepth(_ format: Int32) -> Int? {
    switch Int(format) & Int(SF_FORMAT_SUBMASK) {
    case Int(SF_FORMAT_PCM_S8), Int(SF_FORMAT_PCM_U8): 8
    case Int(SF_FORMAT_PCM_16): 16
    case Int(SF_FORMAT_PCM_24): 24
    case Int(SF_FORMAT_PCM_32), Int(SF_FORMAT_FLOAT): 32
    case Int(SF_FORMAT_DOUBLE): 64
    default: nil
    }
  }

  static func formatName(_ format: Int32) -> String {
    let major = Int(format) & Int(SF_FORMAT_TYPEMASK)
    let minor = Int(format) & Int(SF_FORMAT_SUBMASK)
    switch major {
    case Int(SF_FORMAT_WAV), Int(SF_FORMAT_WAVEX): return "WAV"
    case Int(SF_FORMAT_FLAC): return "FLAC"
    case Int(SF_FORMAT_AIFF): return "AIFF"
    case Int(SF_FORMAT_OGG):
      switch minor {
      case Int(SF_FORMAT_OPUS): return "Opus"
      case Int(SF_FORMAT_VORBIS): return "Ogg Vorbis"
      default: return "Ogg"
      }
    case 0x23_0000: return "MP3"  // SF_FORMAT_MPEG, named only in newer headers
    default:
      var fmt = SF_FORMAT_INFO()
      fmt.format = Int32(major)
      let ok = sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &fmt, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0
      return ok && fmt.name != nil ? String(cString: fmt.name) : "unknown"
    }
  }
}

/// Opens files with ``SndfileDecoder``.
public struct SndfileDecoderFactory: AudioDecoderFactory {
  /// Creates the factory.
  public init() {}

  /// Opens `path` with libsndfile.
  public func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
    try SndfileDecoder(path: path)
  }
}
