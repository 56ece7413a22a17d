import PlayerCore

#if canImport(Glibc)
  import Glibc
#endif

/// Tells audio files from the rest of a music folder (covers, cue sheets, notes) by their first bytes, so
/// that a folder of ten thousand files is sorted in well under a second: opening every file with a decoder
/// would cost a millisecond each.
///
/// It answers "worth trying", not "will play": a damaged file that passes is reported when its turn comes.
public enum AudioContentProbe {
  /// How many bytes the signatures need.
  static let headerLength = 64

  /// Whether the file at `path` starts like a format that splay decodes. Unreadable files are not.
  public static func looksLikeAudio(atPath path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    return looksLikeAudio(opened: fd)
  }

  /// Whether `file`, found in a folder walk, starts like a format that splay decodes. It is opened from its
  /// folder's descriptor: the kernel then walks one name instead of the whole path.
  public static func looksLikeAudio(_ file: FolderFile) -> Bool {
    let fd = file.path.withCString { openat(file.folder, $0 + file.nameOffset, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
    return looksLikeAudio(opened: fd)
  }

  /// Reads the first bytes of `fd` (closing it) and judges them; a failed open (-1) is not audio.
  private static func looksLikeAudio(opened fd: Int32) -> Bool {
    guard fd >= 0 else { return false }
    defer { close(fd) }
    // On the stack: a folder of 200,000 files is probed once each, and a heap buffer per file showed.
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: headerLength) { buffer in
      let count = read(fd, buffer.baseAddress, headerLength)
      guard count > 0 else { return false }
      return looksLikeAudio(bytes: UnsafeBufferPointer(rebasing: buffer[..<count]))
    }
  }

  /// Whether `header`, the first bytes of a file, is the start of a format that splay decodes.
  public static func looksLikeAudio(header: ArraySlice<UInt8>) -> Bool {
    header.withUnsafeBufferPointer { looksLikeAudio(bytes: $0) }
  }

  private static func looksLikeAudio(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    func ascii(_ text: StaticString, at offset: Int) -> Bool {
      let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
      return bytes.count >= offset + expected.count && bytes[offset..<offset + expected.count].elementsEqual(expected)
    }
    // Containers named by a four-byte tag at the start (WAV, RF64, AIFF, FLAC, Ogg, CAF, AU, WavPack, Monkey's
    // Audio, ID3-tagged MP3 or AAC).
    if ascii("RIFF", at: 0) || ascii("RIFX", at: 0) { return ascii("WAVE", at: 8) }
    if ascii("RF64", at: 0) || ascii("BW64", at: 0) { return true }
    if ascii("FORM", at: 0) { return ascii("AIFF", at: 8) || ascii("AIFC", at: 8) }
    for tag: StaticString in ["fLaC", "OggS", "caff", ".snd", "wvpk", "MAC ", "ID3", "TTA1"] where ascii(tag, at: 0) {
      return true
    }
    // MP4/M4A (AAC, ALAC), 3GP: an `ftyp` box first, with an audio-capable brand.
    if ascii("ftyp", at: 4) { return true }
    // Matroska/WebM (Opus, Vorbis, FLAC inside).
    if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return true }
    // ASF (WMA) starts with the header object's GUID.
    if bytes.starts(with: [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) { return true }
    // Sony Wave64 starts with the GUID of "riff".
    if bytes.starts(with: [0x72, 0x69, 0x66, 0x66, 0x2E, 0x91, 0xCF, 0x11]) { return true }
    return isMPEGAudioFrame(bytes)
  }

  /// An MPEG audio frame header (MP1/2/3) or an ADTS header (raw AAC): an 11- or 12-bit sync word and
  /// field values that exist, so that text or an image rarely passes.
  private static func isMPEGAudioFrame(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return false }
    let version = (bytes[1] >> 3) & 0x03
    let layer = (bytes[1] >> 1) & 0x03
    if layer == 0 {
      // ADTS: MPEG-2/4 AAC, version bits 1x, sampling index 0...12.
      return bytes[1] & 0xF0 == 0xF0 && (bytes[2] >> 2) & 0x0F <= 12
    }
    let bitrateIndex = bytes[2] >> 4
    let rateIndex = (bytes[2] >> 2) & 0x03
    return version != 1 && bitrateIndex != 0x0F && rateIndex != 0x03
  }
}

/// A file met in a folder walk: its path, where its name starts in the path's UTF-8, and its folder, open.
public struct FolderFile: Sendable {
  /// The file's path, the folder's path and `/` before the name.
  public var path: String
  /// The UTF-8 offset of the name in `path`.
  public var nameOffset: Int
  /// A descriptor of the open folder (valid while the file is judged).
  public var folder: Int32

  /// Describes the file whose path is `path`, named from UTF-8 offset `nameOffset` on, in the open `folder`.
  public init(path: String, nameOffset: Int, folder: Int32) {
    self.path = path
    self.nameOffset = nameOffset
    self.folder = folder
  }
}
