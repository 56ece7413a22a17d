import CSndfile
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Decodes WAV, FLAC, Ogg Vorbis, Opus and MP3 with libsndfile, recognising the format by content, never by
/// the file name's extension.
public final class SndfileDecoder: AudioDecoder {
  /// The format, length and tags read when the file was opened.
  public let info: TrackInfo
  /// The SNDFILE pointer's bit pattern (0 once closed): an integer, so the lock's contents are plainly Sendable.
  private let handle: Mutex<UInt>

  /// Opens `path` for decoding.
  ///
  /// The path is checked with `stat` before anything reads it, so a directory, a FIFO (which would block an
  /// `open`) or a device gets ``PlayerError/notAFile(path:)`` at once; the file is then opened once and handed
  /// to libsndfile by descriptor, so what was checked is what is read.
  public init(path: String) throws(PlayerError) {
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
    func tag(_ kind: Int32) -> String? {
      guard let cString = sf_get_string(file, kind) else { return nil }
      let text = String(cString: cString)
      return text.isEmpty ? nil : text
    }
    info = TrackInfo(
      path: path, format: Self.formatName(sfinfo.format), sampleRate: Int(sfinfo.samplerate),
      channels: Int(sfinfo.channels), frames: max(0, Int64(sfinfo.frames)),
      title: tag(Int32(SF_STR_TITLE)), artist: tag(Int32(SF_STR_ARTIST)), album: tag(Int32(SF_STR_ALBUM)))
    handle = Mutex(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(file))))
  }

  deinit {
    handle.withLock { bits in
      if let file = OpaquePointer(bitPattern: bits) { sf_close(file) }
      bits = 0
    }
  }

  /// Reads interleaved float frames; a decoding error mid-file ends the track with an error naming the file.
  public func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    precondition(buffer.count >= frames * info.channels, "buffer too small for \(frames) frames")
    let result: Int64 = handle.withLock { bits in
      guard let file = OpaquePointer(bitPattern: bits), let base = buffer.baseAddress else { return 0 }
      return Int64(sf_readf_float(file, base, sf_count_t(frames)))
    }
    if result < 0 { throw .unsupportedFormat(path: info.path, detail: "read failed") }
    return Int(result)
  }

  /// Seeks to an exact frame (libsndfile decodes forward from the previous key point where it must).
  @discardableResult
  public func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    let target = min(max(frame, 0), info.frames)
    let reached: Int64 = handle.withLock { bits in
      guard let file = OpaquePointer(bitPattern: bits) else { return -1 }
      return Int64(sf_seek(file, sf_count_t(target), SEEK_SET))
    }
    guard reached >= 0 else {
      throw .unsupportedFormat(path: info.path, detail: "cannot seek to frame \(target)")
    }
    return reached
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
