import PlayerTestSupport
import Testing

@testable import PlayerCore
@testable import PlayerPulse

/// Which stream is current, and whether the first `open` takes the stream prepared for it: exactly the same
/// decoder from the start at the server's volume takes it; anything else drops it; later opens take nothing.
@Suite struct StreamLineageTests {
  @Test func streamsAreNumberedFromOne() {
    var lineage = StreamLineage()
    #expect(lineage.current == 0)
    let (first, second) = (lineage.begin(), lineage.begin())
    #expect(first == 1 && second == 2 && lineage.current == 2)
  }

  /// Rows: whether the first open names the prepared decoder, where it starts, its volume, and whether it takes
  /// the prepared stream.
  @Test(arguments: [
    (true, 0.0, nil as Int?, true), (false, 0.0, nil, false), (true, 1.5, nil, false), (true, 0.0, 40, false),
  ])
  func theFirstOpenTakesOnlyTheStreamPreparedForExactlyIt(same: Bool, seconds: Double, volume: Int?, takes: Bool)
    throws
  {
    var lineage = StreamLineage()
    let prepared = FakeDecoder(path: "a.flac")
    #expect(!lineage.firstOpenCame)
    let made = lineage.prepare(prepared, playing: false)
    let entry = try #require(made)
    #expect(entry.decoder === prepared && entry.start == PreparedStart(playing: false))
    #expect(lineage.prepare(prepared, playing: true) == nil, "only one stream is prepared")
    let taken = lineage.takePrepared(for: same ? prepared : FakeDecoder(path: "b.flac"), at: seconds, volume: volume)
    #expect((taken === entry) == takes)
    #expect(entry.dropped == !takes)
    #expect(lineage.firstOpenCame)
    let later = lineage.takePrepared(for: prepared, at: 0, volume: nil)
    #expect(later == nil, "a later open takes nothing")
    #expect(lineage.prepare(prepared, playing: false) == nil, "nothing is prepared after it")
  }

  @Test func aFirstOpenWithNothingPreparedTakesNothing() {
    var lineage = StreamLineage()
    let taken = lineage.takePrepared(for: FakeDecoder(path: "a.flac"), at: 0, volume: nil)
    #expect(taken == nil)
    #expect(lineage.firstOpenCame)
  }
}
