import CSndfile
import Futures
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

  /// Opens `path` for decoding.
  ///
  /// The path is checked with `stat` before anything reads it, so a directory, a FIFO (which would block an
  /// `open`) or a device gets ``PlayerError/notAFile(path:)`` at once; the file is then opened once and handed
  /// to libsndfile by descriptor, so what was checked is what is read. A file shorter than its header declares
  /// is refused (see ``checkLength()``), unless `deferringLengthCheck` asks the caller to make that check
  /// itself with ``checkLength()`` before it trusts the file: `splay play` starts its first file's stream
  /// while the check runs, and starts playing only once it passed.
  public init(path: String, deferringLengthCheck: Bool = false) throws(PlayerError) {
    var st = stat()
    if stat(path, &st) != 0 {
      throw Self.fileError(errno: errno, path: path)
    }
    guard (st.st_mode & S_IFMT) == S_IFREG else { throw .notAFile(path: path) }
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw Self.fileError(errno: errno, path: path) }
    var sfinfo = SF_INFO()
    guard let file = sf_open_fd(fd, Int32(SFM_READ), &sfinfo, 1) else {
      let detail = String(cString: sf_strerror(nil))
      throw .unsupportedFormat(path: path, detail: st.st_size == 0 ? "the file is empty" : detail)
    }
    guard sfinfo.channels >= 1, sfinfo.channels <= 32 else {
      sf_close(file)
      throw .unsupportedFormat(path: path, detail: "\(sfinfo.channels) channels (1 to 32 are supported)")
    }
    guard sfinfo.samplerate >= 1000, sfinfo.samplerate <= 768_000 else {
      sf_close(file)
      throw .unsupportedFormat(path: path, detail: "a sample rate of \(sfinfo.samplerate) Hz")
    }
    if !deferringLengthCheck,
      let problem = Self.lengthProblem(file, frames: Int64(sfinfo.frames), rate: Int64(sfinfo.samplerate))
    {
      sf_close(file)
      throw .unsupportedFormat(path: path, detail: problem)
    }
    func tag(_ kind: Int32) -> String? {
      guard let cString = sf_get_string(file, kind) else { return nil }
      let text = String(cString: cString)
      return text.isEmpty ? nil : text
    }
    info = TrackInfo(
      path: path, format: Self.formatName(sfinfo.format), sampleRate: Int(sfinfo.samplerate),
      channels: Int(sfinfo.channels), frames: max(0, Int64(sfinfo.frames)),
      title: tag(Int32(SF_STR_TITLE)), artist: tag(Int32(SF_STR_ARTIST)), album: tag(Int32(SF_STR_ALBUM)))
    handle = Lock(Handle(bits: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(file)))))
  }

  deinit {
    handle.withLock { handle in
      if let file = OpaquePointer(bitPattern: handle.bits) { sf_close(file) }
      handle.bits = 0
    }
  }

  /// Throws the error ``init(path:deferringLengthCheck:)`` throws for a file that ends before the length its
  /// header declares (truncated). Safe beside reads on other threads: it holds the file while it looks, and
  /// leaves the next read where it was.
  public func checkLength() throws(PlayerError) {
    let problem: String? = handle.withLock { handle in
      guard let file = OpaquePointer(bitPattern: handle.bits) else { return nil }
      let problem = Self.lengthProblem(file, frames: info.frames, rate: Int64(info.sampleRate))
      if handle.frame != 0 { _ = sf_seek(file, sf_count_t(handle.frame), SEEK_SET) }
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
    let (result, reached): (Int64, Int64) = handle.withLock { handle in
      guard let file = OpaquePointer(bitPattern: handle.bits), let base = buffer.baseAddress else {
        return (0, handle.frame)
      }
      let result = Int64(sf_readf_float(file, base, sf_count_t(frames)))
      if result > 0 { handle.frame += result }
      return (result, handle.frame)
    }
    if result < 0 { throw .unsupportedFormat(path: info.path, detail: "read failed") }
    if result == 0, frames > 0, reached < info.frames - Int64(info.sampleRate) {
      throw .unsupportedFormat(
        path: info.path,
        detail: "the audio ends at \(Self.clockText(Double(reached) / Double(info.sampleRate))) of "
          + "\(Self.clockText(info.duration)) (the file was truncated while playing?)")
    }
    return Int(result)
  }

  /// Seeks to an exact frame (libsndfile decodes forward from the previous key point where it must).
  @discardableResult
  public func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    let target = min(max(frame, 0), info.frames)
    let reached: Int64 = handle.withLock { handle in
      guard let file = OpaquePointer(bitPattern: handle.bits) else { return -1 }
      let reached = Int64(sf_seek(file, sf_count_t(target), SEEK_SET))
      if reached >= 0 { handle.frame = reached }
      return reached
    }
    guard reached >= 0 else {
      throw .unsupportedFormat(path: info.path, detail: "cannot seek to frame \(target)")
    }
    return reached
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

  /// `m:ss.mmm`, for messages about lengths.
  private static func clockText(_ seconds: Double) -> String {
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
