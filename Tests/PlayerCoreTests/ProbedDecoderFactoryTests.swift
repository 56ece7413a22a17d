import PlayerCore
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
}
