import Futures
import Glibc
import PlayerCore

/// Decodes AAC-LC in MP4/M4A files (what phones, iTunes and `ffmpeg -c:a aac` make) with FAAD2 and splay's own
/// reading of the MP4 index, so that playing one loads one small library instead of FFmpeg's 130 (peak resident
/// memory to play an M4A file: see docs/performance.md).
///
/// Gapless like ``FFmpegDecoder``: the encoder's delay and padding, from the edit list (or iTunes' iTunSMPB tag),
/// are not played. Seeks are sample-exact (a fresh decoder two packets before the target, the frames before it
/// dropped). A truncated file plays its packets that are in the file and declares that shorter length; a packet
/// that does not decode is played as silence.
///
/// Everything else is left to FFmpeg: HE-AAC (SBR, parametric stereo), more than two channels, 960-frame packets,
/// complex edit lists, fragmented files, and files with no gapless information (whose priming FFmpeg plays).
public final class AACDecoder: AudioDecoder {
  /// The format, length and tags read when the file was opened.
  public let info: TrackInfo
  private let stream: Lock<AACStream>

  /// Opens `path` if it is an MP4 file holding AAC-LC this decoder plays; nil otherwise (FFmpeg's turn).
  public init?(path: String) {
    let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
      let file = try? MP4File(descriptor: descriptor, size: Int64(status.st_size)),
      let track = try? MP4AudioTrack.first(in: file.moov)
    else {
      close(descriptor)
      return nil
    }
    let tags = MP4Tags(moov: file.moov)
    guard let format = AACFormat(track: track, tags: tags),
      let faad = FaadDecoder(config: track.decoderConfig)
    else {
      close(descriptor)
      return nil
    }
    var stream = AACStream(
      descriptor: descriptor, track: track, fileSize: file.size, delay: format.delay, channels: format.channels,
      decoder: faad)
    guard stream.check(rate: format.sampleRate) else { return nil }
    let declared = format.frames
    let playable = max(0, min(declared, Int64(stream.playablePackets) * AACStream.packetFrames - format.delay))
    let seconds = Double(playable) / Double(format.sampleRate)
    info = TrackInfo(
      path: path, format: "MP4/AAC", sampleRate: format.sampleRate, channels: format.channels, frames: playable,
      title: tags.title, artist: tags.artist, album: tags.album, trackNumber: tags.trackNumber, date: tags.date,
      bitDepth: nil, bitrate: seconds > 0.1 ? Int((Double(file.size) * 8 / seconds).rounded()) : nil,
      damage: playable < declared ? Self.damage(playable, of: declared, rate: format.sampleRate) : nil)
    self.stream = Lock(stream)
  }

  /// Reads interleaved float frames; 0 at the end of the track or of the packets a truncated file holds.
  public func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
    precondition(buffer.count >= frames * info.channels, "buffer too small for \(frames) frames")
    let limit = info.frames
    return stream.withLock { $0.read(into: buffer, frames: frames, limit: limit) }
  }

  /// Seeks to an exact frame.
  @discardableResult
  public func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
    let target = min(max(frame, 0), info.frames)
    guard stream.withLock({ $0.seek(to: target) }) else {
      throw .unsupportedFormat(path: info.path, detail: "cannot seek to frame \(target)")
    }
    return target
  }

  private static func damage(_ playable: Int64, of declared: Int64, rate: Int) -> String {
    "the audio ends at \(SndfileDecoder.clockText(Double(playable) / Double(rate))) of the "
      + "\(SndfileDecoder.clockText(Double(declared) / Double(rate))) its header declares (truncated)"
  }
}
