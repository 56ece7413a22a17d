import Testing

@testable import PlayerCore

/// Where a gapless next track begins in the stream, and when the stream has moved on to it.
@Suite struct GaplessBoundaryTests {
  private let next = FakeDecoder(path: "next.flac")

  /// `startFeeding()`, outside the expectation macros (which take no `inout` calls).
  private static func feed(_ gapless: inout GaplessBoundary) -> (decoder: any AudioDecoder, rewind: Bool)? {
    gapless.startFeeding()
  }

  private static func advance(
    _ gapless: inout GaplessBoundary, at time: UInt64
  ) -> (decoder: any AudioDecoder, place: GaplessBoundary.Place)? {
    gapless.advance(at: time)
  }

  @Test func nothingContinuesATrackThatWasOfferedNothing() {
    var gapless = GaplessBoundary()
    #expect(!gapless.canContinue)
    #expect(Self.feed(&gapless) == nil)
    #expect(Self.advance(&gapless, at: .max) == nil)
    #expect(gapless.wait(from: 0) == nil)
  }

  @Test func anOfferedTrackIsDecodedOnceFromItsStart() throws {
    var gapless = GaplessBoundary()
    gapless.offer(next)
    #expect(gapless.canContinue)
    let feed = try #require(Self.feed(&gapless))
    #expect(feed.decoder === next)
    #expect(!feed.rewind)
    #expect(gapless.feedingUpcoming)
    #expect(Self.feed(&gapless) == nil, "a second end of the same track must not start it again")
  }

  @Test func theBoundaryIsAStreamTimeCountedFromTheAnchor() throws {
    var gapless = GaplessBoundary()
    gapless.offer(next)
    _ = gapless.startFeeding()
    // 44,100 frames written since an anchor at 2 s of stream time: the next track plays from 3 s.
    gapless.written(before: 44_100, anchorStreamTime: 2_000_000, sampleRate: 44_100)
    #expect(gapless.place == GaplessBoundary.Place(writtenFrames: 44_100, streamTime: 3_000_000))
    #expect(gapless.wait(from: 2_500_000) == 0.5)
    #expect(gapless.wait(from: 3_200_000) == 0)
  }

  @Test func theStreamMovesOnOnlyOnceTheServerHasPlayedTheBoundary() throws {
    var gapless = GaplessBoundary()
    gapless.offer(next)
    _ = gapless.startFeeding()
    gapless.written(before: 100, anchorStreamTime: 0, sampleRate: 100)
    #expect(Self.advance(&gapless, at: 999_999) == nil)
    #expect(gapless.upcoming != nil, "nothing is forgotten before the boundary")
    let moved = try #require(Self.advance(&gapless, at: 1_000_000))
    #expect(moved.decoder === next)
    #expect(moved.place.writtenFrames == 100)
    #expect(gapless.upcoming == nil && !gapless.feedingUpcoming && gapless.place == nil)
    #expect(Self.advance(&gapless, at: 2_000_000) == nil, "one track change per boundary")
  }

  @Test func aSeekBackIntoTheTrackRewindsTheNextOneBeforeItIsDecodedAgain() throws {
    var gapless = GaplessBoundary()
    gapless.offer(next)
    _ = gapless.startFeeding()
    gapless.written(before: 100, anchorStreamTime: 0, sampleRate: 100)
    gapless.repositioned()
    #expect(gapless.place == nil)
    #expect(gapless.canContinue)
    let again = try #require(Self.feed(&gapless))
    #expect(again.rewind)
    gapless.repositioned()
    #expect(try #require(Self.feed(&gapless)).rewind)
  }

  @Test func aSeekBeforeTheNextTrackWasReachedNeedsNoRewind() throws {
    var gapless = GaplessBoundary()
    gapless.offer(next)
    gapless.repositioned()
    #expect(try #require(Self.feed(&gapless)).rewind == false)
  }

  @Test func aNewOfferStartsClean() throws {
    var gapless = GaplessBoundary()
    gapless.offer(next)
    _ = gapless.startFeeding()
    gapless.repositioned()
    let other = FakeDecoder(path: "other.flac")
    gapless.offer(other)
    let feed = try #require(Self.feed(&gapless))
    #expect(feed.decoder === other)
    #expect(!feed.rewind)
  }

  @Test func aWithdrawnOfferIsNotDecoded() {
    var gapless = GaplessBoundary()
    gapless.offer(next)
    gapless.withdraw()
    #expect(!gapless.canContinue)
    #expect(Self.feed(&gapless) == nil)
  }
}
