/// Finds tracks in a queue by words: a track matches when each word of the query is in its path (folded by
/// ``SearchFolding``: `bjork hyper` finds `Björk/Homogenic/01 Hunter… Hyperballad.flac`) or in its tags: the
/// title, artist and album of the track playing, and of every track the library index read (``learn(tags:)``).
/// What a person types after `/` in the live view.
public struct QueueSearch: Sendable {
  /// The queue's paths, folded once: a search runs on every key typed.
  private var folded: [String] = []
  /// The folded tags of the queue's tracks, by queue index, where they are known.
  private var foldedTags: [[UInt8]?] = []
  /// The queue revision `folded` and `foldedTags` were made from; nil when they must be made again.
  private var revision: UInt64?
  /// The tags learned, by path.
  private var tags: [String: String] = [:]

  /// An empty search; it reads the queue on first use.
  public init() {}

  /// Whether tags were learned (``learn(tags:)``).
  public var knowsTags: Bool { !tags.isEmpty }

  /// Takes the tag text (`title artist album`) of tracks by path, as the library index holds it: a word then
  /// matches a queued track by its tags as well as by its path.
  public mutating func learn(tags learned: [String: String]) {
    tags.merge(learned) { $1 }
    revision = nil
  }

  /// The indexes of the tracks of `state`'s queue that match `query`, in queue order from the one after the
  /// current track round to the current one (what comes next first). Empty for a query without words.
  public mutating func matches(of query: String, in state: PlayerState) -> [Int] {
    // Compared as UTF-8 bytes: folded text has one spelling per letter, and bytes are faster than Characters.
    let words = SearchFolding.fold(query).split(whereSeparator: \.isWhitespace).map { Array($0.utf8) }
    guard !words.isEmpty else { return [] }
    if revision != state.queueRevision || folded.count != state.queue.count {
      folded = state.queue.map(SearchFolding.fold)
      foldedTags = tags.isEmpty ? [] : state.queue.map { path in tags[path].map { Array(SearchFolding.fold($0).utf8) } }
      revision = state.queueRevision
    }
    let playing = state.track.map {
      Array(SearchFolding.fold([$0.title, $0.artist, $0.album].compactMap { $0 }.joined(separator: " ")).utf8)
    }
    let count = folded.count
    let start = state.index.map { $0 + 1 } ?? 0
    return (0..<count).lazy.map { (start + $0) % count }.filter { index in
      let tagged = index < self.foldedTags.count ? self.foldedTags[index] : nil
      return words.allSatisfy { word in
        self.folded[index].utf8.firstRange(of: word) != nil || tagged?.firstRange(of: word) != nil
          || (index == state.index && playing?.firstRange(of: word) != nil)
      }
    }
  }
}
