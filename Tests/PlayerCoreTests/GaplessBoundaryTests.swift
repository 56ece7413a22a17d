import PlayerTestSupport
import Testing

@testable import PlayerCore
@testable import PlayerPulse

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
    gapless.advance(at: time, anchorStreamTime: 0, sampleRate: 100)
  }

  @Test func nothingContinuesATrackThatWasOfferedNothing() {
    var gapless = GaplessBoundary()
    #expect(!gapless.canContinue)
    #expect(Self.feed(&gapless) == nil)
    #expect(Self.advance(&gapless, at: .max) == nil)
    #expect(gapless.wait(from: 0, anchorStreamTime: 0, sampleRate: 100) == nil)
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
    gapless.written(before: 44_100)
    let place = gapless.place(anchorStreamTime: 2_000_000, sampleRate: 44_100)
    #expect(place == GaplessBoundary.Place(writtenFrames: 44_100, streamTime: 3_000_000))
    #expect(gapless.wait(from: 2_500_000, anchorStreamTime: 2_000_000, sampleRate: 44_100) == 0.5)
    #expect(gapless.wait(from: 3_200_000, anchorStreamTime: 2_000_000, sampleRate: 44_100) == 0)
  }

  /// After a flush the frames are written before the server tells where they play: the boundary is nowhere
  /// until then, however far the clock reads (the old anchor had a track move on while corked at the end).
  @Test func aBoundaryWrittenBeforeTheAnchorIsKnownWaitsForIt() throws {
    var gapless = GaplessBoundary()
    gapless.offer(next)
    _ = gapless.startFeeding()
    gapless.written(before: 0)
    #expect(gapless.place(anchorStreamTime: nil, sampleRate: 100) == nil)
    #expect(gapless.wait(from: 5_000_000, anchorStreamTime: nil, sampleRate: 100) == nil)
    #expect(gapless.advance(at: 5_000_000, anchorStreamTime: nil, sampleRate: 100) == nil)
    #expect(gapless.advance(at: 5_000_000, anchorStreamTime: 5_000_000, sampleRate: 100) == nil, "corked there")
    #expect(gapless.advance(at: 5_000_100, anchorStreamTime: 5_000_000, sampleRate: 100) != nil)
  }

  @Test func theStreamMovesOnOnlyOnceTheServerHasPlayedTheBoundary() throws {
    var gapless = GaplessBoundary()
    gapless.offer(next)
    _ = gapless.startFeeding()
    gapless.written(before: 100)
    #expect(Self.advance(&gapless, at: 999_999) == nil)
    #expect(Self.advance(&gapless, at: 1_000_000) == nil, "at the boundary, nothing of the next track has played")
    #expect(gapless.upcoming != nil, "nothing is forgotten before the boundary")
    let moved = try #require(Self.advance(&gapless, at: 1_000_001))
    #expect(moved.decoder === next)
    #expect(moved.place.writtenFrames == 100)
    #expect(gapless.upcoming == nil && !gapless.feedingUpcoming && gapless.boundaryFrames == nil)
    #expect(Self.advance(&gapless, at: 2_000_000) == nil, "one track change per boundary")
  }

  @Test func aSeekBackIntoTheTrackRewindsTheNextOneBeforeItIsDecodedAgain() throws {
    var gapless = GaplessBoundary()
    gapless.offer(next)
    _ = gapless.startFeeding()
    gapless.written(before: 100)
    gapless.repositioned()
    #expect(gapless.boundaryFrames == nil)
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
