import Futures
import PlayerTestSupport
import Testing

@testable import PlayerCore

/// Mute is the output's mute flag, confirmed like a volume; the volume keeps its level (`m` used to set 0).
@Suite struct MuteTests {
  @Test func muteTogglesTheFlagAndKeepsTheVolume() async {
    let harness = Harness()
    await harness.run(.load(["a.flac"]))
    await harness.run(.volume(.absolute(40)))
    let muted = await harness.run(.mute(nil))
    #expect(muted.succeeded)
    #expect(harness.controller.state.muted)
    #expect(harness.controller.state.volume == 40, "the level stays")
    #expect(harness.output.muted && harness.output.volume == 40, "the output holds both")
    await harness.run(.mute(nil))
    #expect(!harness.controller.state.muted)
    #expect(harness.controller.state.volume == 40)
    await harness.run(.mute(false))
    #expect(!harness.output.muted, "unmute while unmuted: still unmuted")
  }

  @Test func theTextAndJSONFormsParse() throws {
    #expect(try CommandParser.parse("mute") == .mute(nil))
    #expect(try CommandParser.parse("mute on") == .mute(true))
    #expect(try CommandParser.parse("mute off") == .mute(false))
    #expect(try CommandParser.parse("unmute") == .mute(false))
    #expect(PlayerCommand.mute(true).description == "mute on")
    #expect(PlayerCommand.mute(nil).description == "mute")
    #expect(throws: CommandParseError.self) { try CommandParser.parse("mute loudly") }
  }

  @Test func aServerSideMuteIsPublished() {
    var machine = PlayerStateMachine(state: PlayerState(status: .playing, volume: 70))
    guard case .publish(let state) = machine.handle(.muteChanged(true)) else {
      Issue.record("not published")
      return
    }
    #expect(state.muted && state.volume == 70)
  }
}
