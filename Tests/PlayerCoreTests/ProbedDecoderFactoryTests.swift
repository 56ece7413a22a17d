import PlayerCore
import PlayerDecoding
import PlayerTestSupport
import Synchronization
import Testing

@Suite struct ProbedDecoderFactoryTests {
  /// Counts the files it opens; `missing*` paths fail.
  final class CountingOpener: AudioDecoderFactory {
    let opened = Mutex<[String]>([])

    func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
      opened.withLock { $0.append(path) }
      if path.hasPrefix("missing") { throw .fileNotFound(path: path) }
      return FakeDecoder(path: path)
    }
  }

  @Test func theFirstCheckedFileIsOpenedOnceAndEveryLaterOpenIsFresh() throws {
    let opener = CountingOpener()
    let factory = ProbedDecoderFactory(opener: opener)
    try factory.check("a.flac")
    try factory.check("b.flac")
    let first = try factory.open("a.flac")
    #expect(opener.opened.withLock { $0 } == ["a.flac", "b.flac"], "the checked decoder was reused")
    let again = try factory.open("a.flac")
    #expect(again !== first, "a kept decoder is handed out once (a looping queue reopens its first track)")
    _ = try factory.open("b.flac")
    #expect(opener.opened.withLock { $0 } == ["a.flac", "b.flac", "a.flac", "b.flac"])
  }

  @Test func aFileThatFailsTheCheckIsNotKeptAndTheNextPlayableOneIs() throws {
    let opener = CountingOpener()
    let factory = ProbedDecoderFactory(opener: opener)
    #expect(throws: PlayerError.fileNotFound(path: "missing.flac")) { try factory.check("missing.flac") }
    try factory.check("b.flac")
    _ = try factory.open("b.flac")
    #expect(opener.opened.withLock { $0 } == ["missing.flac", "b.flac"])
  }

  @Test func aPathCheckedTwiceIsOpenedOnceAndItsKeptDecoderIsTheOneHandedOut() throws {
    let opener = CountingOpener()
    let factory = ProbedDecoderFactory(opener: opener)
    #expect(factory.keptDecoder(for: "a.flac") == nil)
    try factory.check("a.flac")
    let kept = try #require(factory.keptDecoder(for: "a.flac"))
    #expect(factory.keptDecoder(for: "b.flac") == nil, "only the kept path's decoder")
    // `splay play` checks its first file early (to prepare its stream) and again once its arguments are parsed.
    try factory.check("a.flac")
    #expect(opener.opened.withLock { $0 } == ["a.flac"])
    #expect(try factory.open("a.flac") === kept, "peeking left the decoder for the controller")
    #expect(factory.keptDecoder(for: "a.flac") == nil, "handed out once")
  }

  /// `splay play --shuffle a b` may play b first; the decoder kept for a may have been read by a stream
  /// prepared for it meanwhile, so a later open of a gets a fresh one.
  @Test func theKeptDecoderIsOnlyForTheFirstOpenWhateverItAsksFor() throws {
    let opener = CountingOpener()
    let factory = ProbedDecoderFactory(opener: opener)
    try factory.check("a.flac")
    let kept = try #require(factory.keptDecoder(for: "a.flac"))
    _ = try factory.open("b.flac")
    #expect(factory.keptDecoder(for: "a.flac") == nil, "let go at the first open")
    #expect(try factory.open("a.flac") !== kept)
    #expect(opener.opened.withLock { $0 } == ["a.flac", "b.flac", "a.flac"])
  }
}

extension ProbedDecoderFactoryTests {
  /// `splay play` lets its early stream play only when `keep` kept its decoder: a decoder checked first by
  /// the command, or an `open` that already came, means the controller plays another decoder.
  @Test func keepSaysWhetherTheDecoderIsTheOneTheFirstOpenGets() throws {
    let opener = CountingOpener()
    let checkedFirst = ProbedDecoderFactory(opener: opener)
    try checkedFirst.check("a.flac")
    let early = FakeDecoder(path: "a.flac")
    #expect(!checkedFirst.keep(early, for: "a.flac"), "the command's own decoder is kept")
    #expect(try checkedFirst.open("a.flac") !== early)

    let openedFirst = ProbedDecoderFactory(opener: opener)
    let fresh = try openedFirst.open("a.flac")
    #expect(!openedFirst.keep(early, for: "a.flac"), "nothing is kept once the first open came")
    #expect(try openedFirst.open("a.flac") !== early)
    #expect(fresh !== early)

    let keptFirst = ProbedDecoderFactory(opener: opener)
    #expect(keptFirst.keep(early, for: "a.flac"))
    #expect(try keptFirst.open("a.flac") === early)
  }
}
