import Testing

@testable import PlayerCore
@testable import PlayerPulse

/// Which volume and mute changes the server reports are a session manager's restore to undo, and which are
/// the user's to publish: the decisions ``StreamVolume`` makes, row by row.
@Suite struct StreamVolumeTests {
  private let ready: UInt64 = 50_000_000_000
  private let watch = StreamVolume.restoreWatch

  /// A volume made ready at `ready` with `explicit` asked for by `open` (nil: none).
  private func volume(explicit: Int?) -> StreamVolume {
    var volume = StreamVolume()
    volume.streamCreated(volume: explicit)
    volume.streamReady(at: ready)
    return volume
  }

  /// Rows: the explicit volume, the level reported, how long after the stream became ready, and the reaction.
  @Test(arguments: [
    (Int?.some(40), 100, UInt64(2_000_000), StreamVolume.Reaction<Int>.reassert(40)),
    (40, 40, 2_000_000, .ignore),
    (40, 70, 1_500_000_000, .publish(70)),
    (nil, 70, 2_000_000, .publish(70)),
  ])
  func aReportedLevel(explicit: Int?, reported: Int, after: UInt64, reaction: StreamVolume.Reaction<Int>) {
    var volume = volume(explicit: explicit)
    #expect(volume.reported(level: reported, at: ready + after) == reaction)
    if case .publish(let level) = reaction {
      #expect(volume.level == level)
      #expect(volume.explicit == nil, "the user's level is no longer one to reassert")
    }
  }

  @Test func aReassertedLevelIsNotExplicitAgainButStaysTheLevel() {
    var volume = volume(explicit: 40)
    #expect(volume.reported(level: 100, at: ready + 1) == .reassert(40))
    volume.acknowledged(level: 40, explicit: false)
    #expect(volume.level == 40 && volume.explicit == 40)
    #expect(volume.reported(level: 40, at: ready + 2) == .ignore)
  }

  @Test func theWatchEndsOneSecondAfterTheStreamIsReady() {
    var inside = volume(explicit: 40)
    #expect(inside.reported(level: 90, at: ready + watch - 1) == .reassert(40))
    var outside = volume(explicit: 40)
    #expect(outside.reported(level: 90, at: ready + watch) == .publish(90))
  }

  /// Rows: the flag splay has, the flag reported, how long after ready, and the reaction.
  @Test(arguments: [
    (true, false, UInt64(2_000_000), StreamVolume.Reaction<Bool>.reassert(true)),
    (false, true, 2_000_000, .reassert(false)),
    (false, false, 2_000_000, .ignore),
    (false, true, 1_500_000_000, .publish(true)),
  ])
  func aReportedMuteFlag(ours: Bool, reported: Bool, after: UInt64, reaction: StreamVolume.Reaction<Bool>) {
    var volume = volume(explicit: nil)
    volume.set(muted: ours)
    #expect(volume.reported(muted: reported, at: ready + after) == reaction)
  }

  /// Rows: the explicit level, what the server gave the new stream, splay's mute flag, and what to set.
  @Test(arguments: [
    (Int?.some(40), 100, false, StreamVolume.NewStreamFix(level: 40, mute: false)),
    (40, 40, true, .init(level: nil, mute: true)),
    (nil, 65, false, .init(level: nil, mute: false)),
  ])
  func aNewStreamGetsTheExplicitLevelAndTheMuteFlag(
    explicit: Int?, given: Int, muted: Bool, fix: StreamVolume.NewStreamFix
  ) {
    var volume = volume(explicit: explicit)
    volume.set(muted: muted)
    #expect(volume.newStreamRead(level: given) == fix)
    #expect(volume.level == given, "the level is the server's until the fix is acknowledged")
  }

  @Test func aLevelSetWithoutAStreamIsTheNextStreamsExplicitOne() {
    var volume = StreamVolume()
    volume.requestedWithoutStream(30)
    #expect(volume.level == 30 && volume.explicit == 30)
    volume.acknowledged(level: 55, explicit: true)
    #expect(volume.level == 55 && volume.explicit == 55)
  }
}
