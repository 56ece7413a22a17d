import AudioTestSupport
import Foundation
import Futures

/// Media made at test time with the `ffmpeg` program (scripts/install-deps installs it), from one known signal,
/// for the FFmpeg decoder's suite: M4A files are not committed, and made here the suite states how they were
/// encoded.
///
/// The signal is 44.1 kHz stereo, 16-bit, ``frames`` long (not a multiple of AAC's 1024 or ALAC's 4096 frames):
/// a rising linear chirp (200 Hz to 8 kHz) on the left and a falling one on the right, so that every frame has its
/// own neighbourhood and a decoded copy shifted by one frame matches it visibly worse.
enum FFmpegFixtures {
  static let rate = 44_100
  static let channels = 2
  /// Three seconds and 1,234 frames.
  static let frames = 3 * 44_100 + 1_234

  /// The `ffmpeg` program on `PATH`, or nil: the suite is then skipped with that reason.
  static let ffmpeg: String? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/ffmpeg" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  /// The source signal, interleaved, as the decoders return it (16-bit samples / 32768).
  static let source: [Float] = {
    var samples = [Float](repeating: 0, count: frames * channels)
    let duration = Double(frames) / Double(rate)
    for i in 0..<frames {
      let t = Double(i) / Double(rate)
      // Phase of a linear chirp from f0 to f1 over the whole signal.
      func chirp(_ f0: Double, _ f1: Double) -> Double {
        sin(2 * Double.pi * (f0 * t + (f1 - f0) * t * t / (2 * duration)))
      }
      samples[2 * i] = Float(Int16(0.4 * 32767 * chirp(200, 8000))) / 32768
      samples[2 * i + 1] = Float(Int16(0.3 * 32767 * chirp(8000, 200))) / 32768
    }
    return samples
  }()

  /// The folder the files are made in, removed when the test process exits.
  static let folder: String = {
    let path = FileManager.default.temporaryDirectory.path + "/splay-ffmpeg-fixtures-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: FFmpegFixtures.folder) }
    return path
  }()

  /// The source as a 16-bit WAV file.
  static let sourceWAV: String = {
    let path = folder + "/source.wav"
    var data = Data()
    func append<T: FixedWidthInteger>(_ value: T) {
      withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
    let bytes = frames * channels * 2
    data.append(contentsOf: Array("RIFF".utf8))
    append(UInt32(36 + bytes))
    data.append(contentsOf: Array("WAVEfmt ".utf8))
    append(UInt32(16))
    append(UInt16(1))
    append(UInt16(channels))
    append(UInt32(rate))
    append(UInt32(rate * channels * 2))
    append(UInt16(channels * 2))
    append(UInt16(16))
    data.append(contentsOf: Array("data".utf8))
    append(UInt32(bytes))
    for sample in source { append(Int16(sample * 32768)) }
    _ = FileManager.default.createFile(atPath: path, contents: data)
    return path
  }()

  /// Tags every encoded fixture carries.
  static let tags = [
    "title": "Chirp", "artist": "splay fixtures", "album": "Test Media", "track": "3/12", "date": "2024",
  ]

  /// Encodes the source into `folder/name` with these `ffmpeg` output options (the codec and its settings),
  /// once per name; returns the path.
  static func encode(_ name: String, _ options: [String]) throws -> String {
    try made.withLock { made in
      let path = folder + "/" + name
      if made.contains(name) { return path }
      let tagOptions = tags.sorted { $0.key < $1.key }.flatMap { ["-metadata", "\($0.key)=\($0.value)"] }
      try run(["-i", sourceWAV] + options + tagOptions + [path])
      made.insert(name)
      return path
    }
  }

  /// A committed fixture (`Fixtures.media` name) re-encoded into `folder/name` with these output options,
  /// once per name; returns the path. The integration tests play the ladder and the sweep as M4A this way.
  static func transcode(_ fixture: String, as name: String, _ options: [String]) throws -> String {
    try transcodeFile(Fixtures.media(fixture), as: name, options)
  }

  /// The file at `path` re-encoded (or remuxed, with `-c copy`) into `folder/name` with these output options, once
  /// per name; returns the path.
  static func transcodeFile(_ path: String, as name: String, _ options: [String]) throws -> String {
    try made.withLock { made in
      let target = folder + "/" + name
      if made.contains(name) { return target }
      try run(["-i", path] + options + [target])
      made.insert(name)
      return target
    }
  }

  /// The names made so far; held while one is made, so that each is made once.
  private static let made = Lock<Set<String>>([])

  /// Runs `ffmpeg` quietly with `arguments`; throws with its error output when it fails.
  static func run(_ arguments: [String]) throws {
    guard let ffmpeg else { throw FixtureError(message: "no ffmpeg on PATH") }
    let result = try ChildProcess.run(
      [ffmpeg, "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments, stdout: "/dev/null")
    guard result.status == 0 else {
      throw FixtureError(message: "ffmpeg \(arguments.joined(separator: " ")): \(result.stderr)")
    }
  }

  /// ALAC in M4A: lossless, so it decodes to the source exactly.
  static func alac() throws -> String { try encode("alac.m4a", ["-c:a", "alac"]) }

  /// AAC in M4A whose edit list counts in samples (`-movie_timescale 44100`), so that it states the length
  /// exactly, without perceptual noise substitution (`-aac_pns 0`), whose random noise makes two decodes of
  /// the same packets differ: decoded after a seek, this file equals a straight decode exactly.
  static func exactAAC() throws -> String {
    try encode("aac-exact.m4a", ["-c:a", "aac", "-b:a", "192k", "-aac_pns", "0", "-movie_timescale", "44100"])
  }

  /// AAC in M4A as `ffmpeg -c:a aac` makes it by default: an edit list in milliseconds, noise substitution on.
  static func defaultAAC() throws -> String { try encode("aac-default.m4a", ["-c:a", "aac", "-b:a", "192k"]) }

  /// A copy of `path`'s first half, named `name`.
  static func firstHalf(of path: String, as name: String) throws -> String {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let target = folder + "/" + name
    try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: target))
    return target
  }

  struct FixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
  }
}
