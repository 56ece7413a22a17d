/// Finds tracks in a queue by words: a track matches when each word of the query is in its path (folded by
/// ``SearchFolding``: `bjork hyper` finds `Björk/Homogenic/01 Hunter… Hyperballad.flac`), or, for the track
/// playing, in its title, artist or album. What a person types after `/` in the live view.
public struct QueueSearch: Sendable {
  /// The queue's paths, folded once: a search runs on every key typed.
  private var folded: [String] = []
  /// The queue revision `folded` was made from.
  private var revision: UInt64?

  /// An empty search; it reads the queue on first use.
  public init() {}

  /// The indexes of the tracks of `state`'s queue that match `query`, in queue order from the one after the
  /// current track round to the current one (what comes next first). Empty for a query without words.
  public mutating func matches(of query: String, in state: PlayerState) -> [Int] {
    // Compared as UTF-8 bytes: folded text has one spelling per letter, and bytes are faster than Characters.
    let words = SearchFolding.fold(query).split(whereSeparator: \.isWhitespace).map { Array($0.utf8) }
    guard !words.isEmpty else { return [] }
    if revision != state.queueRevision || folded.count != state.queue.count {
      folded = state.queue.map(SearchFolding.fold)
      revision = state.queueRevision
    }
    let tags = state.track.map {
      Array(SearchFolding.fold([$0.title, $0.artist, $0.album].compactMap { $0 }.joined(separator: " ")).utf8)
    }
    let count = folded.count
    let start = state.index.map { $0 + 1 } ?? 0
    return (0..<count).lazy.map { (start + $0) % count }.filter { index in
      words.allSatisfy { word in
        self.folded[index].utf8.firstRange(of: word) != nil
          || (index == state.index && tags?.firstRange(of: word) != nil)
      }
    }
  }
}
