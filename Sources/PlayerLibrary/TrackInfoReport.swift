import PlayerCore

/// What `info` prints for a list of tracks, whoever read them (the files, or the library index): a line per
/// track, sent in blocks (a collection is 100,000 of them) unless a person watches them come; a track's damage and
/// a track that could not be read go to standard error after the lines before them; and whether anything was
/// wrong, for the exit status.
package struct TrackInfoReport {
  private let out: ([UInt8]) -> Void
  private let error: (String) -> Void
  /// How many bytes of lines wait before they are sent.
  private let block: Int
  private var pending: [UInt8] = []
  /// Whether a track could not be read, or plays damaged, or the caller said so at the start.
  package private(set) var failed: Bool

  /// A report that writes lines with `out` and messages with `error`; `failed` when something was wrong already
  /// (an entry left out). `eachLine` sends every line as it comes (a terminal: a slow disk must not hold lines
  /// back); otherwise they go in blocks of 64 KiB.
  package init(
    failed: Bool, eachLine: Bool = false, out: @escaping ([UInt8]) -> Void, error: @escaping (String) -> Void
  ) {
    self.failed = failed
    self.out = out
    self.error = error
    block = eachLine ? 1 : 1 << 16
  }

  /// Reports each of `paths` as `info` does and returns whether anything was wrong. `read` gives a track's info
  /// and, when it knows them, its ReplayGain tags (otherwise they are read from the file, for text lines only);
  /// `json` makes a track's JSON line, nil for text.
  package mutating func run(
    over paths: [String], json: ((TrackInfo) -> String)?,
    read: (String) throws(PlayerError) -> (info: TrackInfo, gains: ReplayGainTags?)
  ) -> Bool {
    for path in paths {
      do {
        let (info, gains) = try read(path)
        add(
          json?(info) ?? TrackInfoLine.text(info, gains: gains ?? ReplayGainTags.read(atPath: path)), for: info,
          at: path)
      } catch {
        add(error)
      }
    }
    return finish()
  }

  /// Adds `line` for the track `info` of `path`, and says what is wrong with its audio, if anything.
  package mutating func add(_ line: String, for info: TrackInfo, at path: String) {
    pending += line.utf8
    pending.append(UInt8(ascii: "\n"))
    if pending.count >= block { send() }
    // It plays, as far as its audio goes; the exit status still says that something is wrong with it.
    if let damage = info.damage { fail("\(path): \(damage)") }
  }

  /// Says why a track could not be read.
  package mutating func add(_ failure: PlayerError) {
    fail(failure.message)
  }

  /// Sends what is left; whether anything was wrong.
  package mutating func finish() -> Bool {
    send()
    return failed
  }

  private mutating func fail(_ message: String) {
    send()
    error(message)
    failed = true
  }

  private mutating func send() {
    guard !pending.isEmpty else { return }
    out(pending)
    pending.removeAll(keepingCapacity: true)
  }
}
