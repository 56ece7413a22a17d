import PlayerCore
import Testing

/// `PlayerState` and `TrackInfo` share their storage between copies: writing one copy must never show in another
/// (a state handed to a future or an observer is a value, whatever the machine does next).
@Suite struct CopyOnWriteStateTests {
  static let track = TrackInfo(
    path: "/music/a.flac", format: "FLAC", sampleRate: 44_100, channels: 2, frames: 441_000, title: "A")

  @Test func writingACopyOfAStateLeavesTheOriginalAsItWas() {
    let original = PlayerState(status: .playing, track: Self.track, volume: 40, queue: ["/music/a.flac"], index: 0)
    var copy = original
    copy.volume = 60
    copy.queue.append("/music/b.flac")
    copy.position.seconds = 12
    copy.track?.title = "B"
    #expect(original.volume == 40)
    #expect(original.queue == ["/music/a.flac"])
    #expect(original.position.seconds == 0)
    #expect(original.track?.title == "A")
    #expect(copy.volume == 60 && copy.queue.count == 2 && copy.position.seconds == 12 && copy.track?.title == "B")
    #expect(original != copy)
  }

  @Test func writingACopyOfATrackLeavesTheOriginalAsItWas() {
    var copy = Self.track
    copy.title = "B"
    copy.frames = 1
    #expect(Self.track.title == "A" && Self.track.frames == 441_000)
    #expect(copy.title == "B" && copy.duration == 1 / 44_100)
  }

  @Test func equalStatesAreEqualWhetherOrNotTheyShareStorage() {
    let one = PlayerState(status: .paused, track: Self.track, volume: 50)
    let built = PlayerState(status: .paused, track: Self.track, volume: 50)
    #expect(one == built && one.hashValue == built.hashValue)
    var changedBack = one
    changedBack.volume = 51
    changedBack.volume = 50
    #expect(changedBack == one)
    #expect(one.sameContent(as: changedBack))
  }

  @Test func debugDescriptionsShowTheFieldsNotTheStorage() {
    let state = PlayerState(status: .paused, track: Self.track, volume: 50)
    #expect(state.debugDescription.hasPrefix("PlayerState(status: "), "\(state.debugDescription)")
    #expect(state.debugDescription.contains("volume: 50"), "\(state.debugDescription)")
    #expect(
      Self.track.debugDescription.hasPrefix("TrackInfo(path: \"/music/a.flac\""), "\(Self.track.debugDescription)")
  }
}
