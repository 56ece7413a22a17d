import Futures
import PlayerCore
import PlayerLibrary
import PlayerTestSupport
import Testing

/// ReplayGain's choices: the factory that picks the gain from the tags and the play order, and the controller
/// that tells the factory the order (GainedDecoderTests has the scaling).
@Suite struct ReplayGainDecodingTests {
  /// The factory reads the file's tags (a fake file has none: the untagged gain) and passes the other factory's
  /// decoder through untouched when ReplayGain is off.
  @Test func theFactoryAppliesThePolicy() throws {
    let applied = Locked<[AppliedGain]>([])
    let applying: ReplayGainDecoderFactory.Applying = { decoder, gain in
      applied.withLock { $0.append(gain) }
      return decoder
    }
    let off = ReplayGainDecoderFactory(
      opening: FakeDecoderFactory(), policy: ReplayGainPolicy(mode: .off), applying: applying)
    let plain = try off.open("a.flac", order: .inOrder)
    #expect(plain is FakeDecoder && applied.withLock { $0.isEmpty })
    let on = ReplayGainDecoderFactory(
      opening: FakeDecoderFactory(), policy: ReplayGainPolicy(mode: .auto, untagged: -3), applying: applying)
    _ = try on.open("a.flac", order: .shuffled)
    #expect(applied.withLock { $0 } == [AppliedGain(decibels: -3, source: .none)])
    #expect(throws: PlayerError.fileNotFound(path: "missing.flac")) { try on.open("missing.flac") }
  }

  /// Records the order each `open` was asked for.
  private final class OrderRecorder: AudioDecoderFactory {
    let orders = Locked<[PlayOrder]>([])
    func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
      Issue.record("opened without the play order")
      return FakeDecoder(path: path)
    }
    func open(_ path: String, order: PlayOrder) throws(PlayerError) -> any AudioDecoder {
      orders.withLock { $0.append(order) }
      return FakeDecoder(path: path)
    }
  }

  /// `auto` hears from the controller whether the queue plays in order: each track is opened with the order
  /// the queue plays in at that moment.
  @Test func theControllerOpensEachTrackWithTheQueuesOrder() async {
    let recorder = OrderRecorder()
    let harness = Harness(decoders: recorder)
    await harness.run(.load(["a.flac", "b.flac", "c.flac"]))
    await harness.run(.play)
    await harness.run(.shuffle(true))
    await harness.run(.next)
    await harness.run(.shuffle(false))
    await harness.run(.jump(toIndex: 0))
    let orders = recorder.orders.withLock { $0 }
    #expect(orders.first == .inOrder)
    #expect(orders.last == .inOrder)
    #expect(orders.contains(.shuffled), "\(orders)")
  }
}
