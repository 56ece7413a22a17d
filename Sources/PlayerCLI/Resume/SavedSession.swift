import ControlProtocol
import FoundationEssentials
import Glibc
import PlayerCore
import PlayerLibrary

/// What a player keeps between runs: its queue, the current track and where in it, and the settings a person
/// chose (volume, repeat, shuffle), all as the server confirmed them. Written as `state.json`.
struct SavedSession: Codable, Equatable, Sendable {
  /// The format's version: a file of another version is not read.
  static let version = 1
  /// The furthest position kept, in seconds (a year): a larger one is a damaged file.
  static let latestPosition = 31_536_000.0

  /// Whether the values are ones splay could have written: the version, a position within a year, a volume in
  /// 0...100, and a track inside the queue.
  var isPlausible: Bool {
    version == Self.version && position.isFinite && (0...Self.latestPosition).contains(position)
      && (0...100).contains(volume) && index.map { queue.indices.contains($0) } ?? true
  }

  var version = SavedSession.version
  var queue: TrackQueue
  /// The current track's place in `queue`.
  var index: Int?
  /// The confirmed position in the current track, in seconds.
  var position: Double
  var volume: Int
  /// `off`, `all` or `one` (``RepeatMode``).
  var repeatMode: String
  var shuffle: Bool
  /// The current track's file as it was: a file changed since starts from 0.
  var file: FileStamp?

  /// Writes the session as `JSONEncoder` would with sorted keys, handing `write` pieces of about `pieceSize`
  /// bytes: 200,000 paths encoded whole took `splay play` from 60 to 110 MB at its peak (docs/performance.md).
  /// A position that is not finite is the caller's to refuse.
  func writeJSON(pieceSize: Int = 1 << 16, to write: ([UInt8]) -> Void) {
    var json = JSONWriter()
    json.object { json in
      if let file {
        json.field("file") { json in
          json.field("modified", file.modified)
          json.field("size", file.size)
        }
      }
      if let index { json.field("index", index) }
      try? json.field("position", position.isFinite ? position : 0)
      json.field("queue", strings: queue) { json in
        if json.bytes.count >= pieceSize { write(json.take()) }
      }
      json.field("repeat", repeatMode)
      json.field("shuffle", shuffle)
      json.field("version", version)
      json.field("volume", volume)
    }
    write(json.take())
  }

  private enum CodingKeys: String, CodingKey {
    case version, queue, index, position, volume
    case repeatMode = "repeat"
    case shuffle, file
  }
}

extension SavedSession {
  /// What `state` says to keep, its relative paths made absolute from `directory` (the session may be resumed
  /// from another one); `file` is read from the disk now.
  init(_ state: PlayerState, directory: String = FileManager.default.currentDirectoryPath) {
    // Shared with the state when every path is absolute already (a folder named by its full path): a copy of
    // 200,000 paths is 3 MB more at `splay play`'s peak.
    queue =
      state.queue.allSatisfy { $0.hasPrefix("/") || StreamURL.isStream($0) }
      ? state.queue
      : TrackQueue(state.queue.lazy.map { $0.hasPrefix("/") || StreamURL.isStream($0) ? $0 : directory + "/" + $0 })
    // Also after a failure (`failed(output-lost)` keeps its track and position: the session resumes there).
    index = state.index.flatMap { $0 < state.queue.count ? $0 : nil }
    // The end of the queue is kept as the start of its last track: resuming an ended queue plays that again.
    position = state.status == .ended || index == nil ? 0 : state.position.seconds
    volume = state.volume
    repeatMode = state.repeatMode.rawValue
    shuffle = state.shuffle
    file = index.flatMap { $0 < queue.count ? FileStamp(track: queue[$0]) : nil }
  }

  /// Whether `next` changed what is kept since `previous`: the queue, the track, the status (a pause, a stop, an
  /// end), the settings, or the position while nothing plays (a paused seek). Positions that only run on while
  /// playing are not worth a write.
  static func worthSaving(_ next: PlayerState, after previous: PlayerState) -> Bool {
    next.queueRevision != previous.queueRevision || next.index != previous.index || next.status != previous.status
      || next.volume != previous.volume || next.repeatMode != previous.repeatMode || next.shuffle != previous.shuffle
      || (next.status != .playing && next.position.seconds != previous.position.seconds)
  }
}
