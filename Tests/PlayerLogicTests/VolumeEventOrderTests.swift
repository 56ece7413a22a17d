import Testing

@testable import PlayerCore

/// A change event reaches the controller behind the commands queued before it: what it publishes is the level
/// the output knows from the server when the event is taken up, not the one read before a later command.
struct VolumeEventOrderTests {
  @Test func aVolumeEventPublishesTheServersLevelNow() {
    let event = PlayerController.current(.volumeChanged(100), server: (level: 40, muted: false))
    #expect(event == .volumeChanged(40))
  }

  @Test func aMuteEventPublishesTheServersFlagNow() {
    let event = PlayerController.current(.muteChanged(true), server: (level: 40, muted: false))
    #expect(event == .muteChanged(false))
  }

  @Test func otherEventsAndOutputsWithoutAReadingAreLeftAsThey() {
    #expect(PlayerController.current(.volumeChanged(70), server: nil) == .volumeChanged(70))
    #expect(PlayerController.current(.deviceChanged("a"), server: (level: 40, muted: false)) == .deviceChanged("a"))
  }
}
