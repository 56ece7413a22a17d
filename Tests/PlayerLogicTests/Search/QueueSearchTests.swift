import PlayerCore
import Testing

/// What `/` finds in the live view: every word of the query in a track's path, accents and case ignored, what
/// comes next in the queue first.
@Suite struct QueueSearchTests {
  /// Rows: the text, and how a search sees it.
  @Test(arguments: [
    ("Björk/Homogenic/01 Hunter.flac", "björk/homogenic/01 hunter.flac".replacingÖ()),
    ("ÉCOLE Ångström Łódź Straße", "ecole angstrom lodz straße"),
    ("Cafe\u{301} decomposed", "cafe decomposed"),
    ("東京事変/教育/01 林檎の唄.flac", "東京事変/教育/01 林檎の唄.flac"),
    ("ΑΒΓ Кино", "αβγ кино"),
    ("plain ASCII", "plain ascii"),
  ])
  func folding(text: String, folded: String) {
    #expect(SearchFolding.fold(text) == folded)
  }

  private static let queue: TrackQueue = [
    "/m/Björk/Homogenic/01 Hunter.flac", "/m/Björk/Post/02 Hyperballad.flac", "/m/Air/Moon Safari/01 La Femme.flac",
    "/m/東京事変/教育/01 林檎の唄.flac", "/m/Björk/Post/01 Army of Me.flac",
  ]

  private static func state(at index: Int?) -> PlayerState {
    PlayerState(
      status: .playing,
      track: index.map {
        TrackInfo(
          path: queue[$0], format: "FLAC", sampleRate: 44_100, channels: 2, frames: 44_100, title: "Tagged Title",
          artist: "Somebody")
      }, queue: queue, index: index)
  }

  /// Rows: the query, the current track, and the matches in the order `/` offers them.
  @Test(arguments: [
    ("bjork", 0, [1, 4, 0]), ("BJÖRK post", 0, [1, 4]), ("hyper", 3, [1]), ("東京", 0, [3]), ("教育 林檎", 2, [3]),
    ("femme", nil, [2]), ("nothing here", 0, []), ("  ", 0, []), ("tagged", 2, [2]), ("tagged", nil, []),
  ])
  func matches(query: String, current: Int?, expected: [Int]) {
    var search = QueueSearch()
    #expect(search.matches(of: query, in: Self.state(at: current)) == expected, "\(query)")
  }

  @Test func aChangedQueueIsReadAgain() {
    var search = QueueSearch()
    var state = Self.state(at: 0)
    #expect(search.matches(of: "zebra", in: state) == [])
    state.queue.append(contentsOf: ["/m/Zebra.flac"])
    state.queueRevision += 1
    #expect(search.matches(of: "zebra", in: state) == [5])
  }

  /// Tags learned from the library index find tracks that are not playing, by words their paths lack, cue
  /// tracks included; every word must be in the path or the tags.
  @Test func learnedTagsFindTracksByTitleArtistAndAlbum() {
    var search = QueueSearch()
    var state = Self.state(at: 0)
    state.queue.append(contentsOf: ["/m/live.cue/track02"])
    state.queueRevision += 1
    #expect(search.matches(of: "isobel", in: state) == [])
    search.learn(tags: [
      "/m/Björk/Post/01 Army of Me.flac": "Army of Me Björk Post",
      "/m/live.cue/track02": "Isobel Björk Live at Shepherd's Bush",
    ])
    #expect(search.knowsTags)
    #expect(search.matches(of: "isobel", in: state) == [5], "learned tags match without a new queue revision")
    #expect(search.matches(of: "shepherd bjork", in: state) == [5])
    #expect(search.matches(of: "post army", in: state) == [4], "a word from the path and one from the tags")
    #expect(search.matches(of: "isobel hunter", in: state) == [], "each word must match")
  }
}

extension String {
  /// The expected fold of a string holding `ö`, written without one.
  fileprivate func replacingÖ() -> String { String(map { $0 == "ö" ? "o" : $0 }) }
}
