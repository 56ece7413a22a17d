import PlayerCore

/// A page of the queue's paths, as the `queue` request answers it (docs/protocol.md): states carry the queue's
/// length and revision only, so that a state line stays small however long the queue is.
///
/// ```json
/// {"id": 3, "ok": true, "queue": {"length": 200000, "offset": 0, "paths": ["/music/a.flac", ...], "revision": 4}}
/// ```
public struct QueuePage: Equatable, Sendable {
  /// How many paths one request may ask for.
  public static let maximumCount = ControlRequest.maximumQueueCount
  /// The number of paths a request without a count gets.
  public static let defaultCount = ControlRequest.defaultQueueCount

  /// The queue's length.
  public var length: Int
  /// The index of the first path of the page (0-based, as `jump` counts on the wire minus one).
  public var offset: Int
  /// The paths from `offset` on, at most the count asked for.
  public var paths: [String]
  /// The queue's revision (``PlayerState/queueRevision``): pages of one revision belong together.
  public var revision: UInt64

  /// Creates a page.
  public init(length: Int, offset: Int, paths: [String], revision: UInt64) {
    self.length = length
    self.offset = offset
    self.paths = paths
    self.revision = revision
  }

  /// The page of `state`'s queue from `offset`, at most `count` paths (none past the end).
  public init(of state: PlayerState, offset: Int, count: Int) {
    let queue = state.queue
    let start = min(max(offset, 0), queue.count)
    let end = min(start + max(count, 0), queue.count)
    self.init(length: queue.count, offset: start, paths: Array(queue[start..<end]), revision: state.queueRevision)
  }

  /// The page as one line of compact JSON with sorted keys, without a newline: `{"queue": {...}}`, which
  /// `splay play --json` prints whenever the queue changes.
  public var jsonText: String {
    var json = JSONWriter()
    json.object { json in json.field("queue", object: { json in write(members: &json) }) }
    return json.text
  }

  /// Writes the whole queue of `state` as the line that `jsonText` of its full page is, newline included,
  /// handing `write` pieces of about `pieceSize` bytes: 200,000 paths are 12 MB of JSON, and held as one
  /// string beside the queue itself they doubled `splay play`'s peak memory.
  public static func writeLine(of state: PlayerState, pieceSize: Int = 1 << 16, to write: ([UInt8]) -> Void) {
    let queue = state.queue
    var json = JSONWriter()
    json.object { json in
      json.field("queue") { json in
        json.field("length", queue.count)
        json.field("offset", 0)
        json.field("paths", strings: queue) { json in
          if json.bytes.count >= pieceSize { write(json.take()) }
        }
        json.field("revision", state.queueRevision)
      }
    }
    json.newline()
    write(json.take())
  }

  func write(members json: inout JSONWriter) {
    json.field("length", length)
    json.field("offset", offset)
    json.field("paths", strings: paths)
    json.field("revision", revision)
  }
}
