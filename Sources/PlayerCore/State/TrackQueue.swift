/// The paths queued for playback, in order: a list kept in chunks of equal size that copies share, so that a
/// state appending to a queue of 200,000 tracks copies the list of chunks and its last chunk, not every path.
///
/// Reads are an array's (`queue[i]`, slices, `count`); equal queues that share their chunks compare equal
/// without reading a path.
public struct TrackQueue: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
  /// Paths per chunk: an append copies at most one chunk plus one reference per chunk.
  static let chunkSize = 1 << 10

  /// Every chunk but the last holds exactly `chunkSize` paths, so an index finds its chunk by division.
  private(set) var chunks: [[String]]
  /// The number of paths.
  public private(set) var count: Int

  /// A queue of `paths`.
  public init(_ paths: some Sequence<String>) {
    chunks = []
    count = 0
    append(contentsOf: paths)
  }

  /// A queue of the listed paths.
  public init(arrayLiteral paths: String...) { self.init(paths) }

  /// The empty queue.
  public init() { self.init([]) }

  /// The first index: 0.
  public var startIndex: Int { 0 }
  /// One past the last path: `count`.
  public var endIndex: Int { count }

  /// The path at `index` (0-based), which must be below `count`.
  public subscript(index: Int) -> String {
    precondition(index >= 0 && index < count, "TrackQueue index \(index) out of range 0..<\(count)")
    return chunks[index / Self.chunkSize][index % Self.chunkSize]
  }

  /// Appends `paths`; the chunks this queue shares with its copies stay shared, except the last when it grows.
  public mutating func append(contentsOf paths: some Sequence<String>) {
    for path in paths {
      if count % Self.chunkSize == 0 {
        chunks.append([])
        chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
      }
      chunks[chunks.count - 1].append(path)
      count += 1
    }
  }

  /// Appends one path.
  public mutating func append(_ path: String) { append(contentsOf: CollectionOfOne(path)) }

  /// Whether this queue begins with every path of `prefix`, in order. Chunks the two share compare without
  /// reading a path, so after an append this costs one chunk's comparison.
  public func hasPrefix(_ prefix: TrackQueue) -> Bool {
    guard prefix.count <= count else { return false }
    let full = prefix.count / Self.chunkSize
    guard chunks[..<full] == prefix.chunks[..<full] else { return false }
    let rest = prefix.count % Self.chunkSize
    return rest == 0 || chunks[full].prefix(rest) == prefix.chunks[full][...]
  }

  /// `lhs` with `rhs` appended.
  public static func + (lhs: TrackQueue, rhs: some Sequence<String>) -> TrackQueue {
    var joined = lhs
    joined.append(contentsOf: rhs)
    return joined
  }

  /// Appends `rhs` to `lhs`.
  public static func += (lhs: inout TrackQueue, rhs: some Sequence<String>) { lhs.append(contentsOf: rhs) }

  public static func == (lhs: TrackQueue, rhs: TrackQueue) -> Bool {
    // Array's own comparison returns at once for chunks that share storage, so only chunks that differ are read.
    lhs.count == rhs.count && lhs.chunks == rhs.chunks
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(count)
    for path in self { hasher.combine(path) }
  }
}

extension TrackQueue: CustomStringConvertible {
  /// The paths as an array prints them.
  public var description: String { Array(self).description }
}

/// A queue is written and read as the JSON array of its paths (a saved session's `queue`).
extension TrackQueue: Codable {
  /// Reads the array of paths.
  public init(from decoder: any Decoder) throws {
    self.init(try [String](from: decoder))
  }

  /// Writes the array of paths.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    for path in self { try container.encode(path) }
  }
}
