import PlayerCore
import Testing

/// What splay does for each MPRIS method and property write.
@Suite struct MPRISRequestTests {
  let state = MPRISPropertiesTests.playing()

  @Test func methodsAreCommands() {
    #expect(MPRISRequest.play.action(in: state) == .send([.play]))
    #expect(MPRISRequest.pause.action(in: state) == .send([.pause]))
    #expect(MPRISRequest.playPause.action(in: state) == .send([.toggle]))
    #expect(MPRISRequest.stop.action(in: state) == .send([.stop]))
    #expect(MPRISRequest.next.action(in: state) == .send([.next]))
    #expect(MPRISRequest.previous.action(in: state) == .send([.previous]))
    #expect(MPRISRequest.quit.action(in: state) == .quit)
    #expect(MPRISRequest.raise.action(in: state) == .nothing)
  }

  @Test func seekIsRelativeInMicroseconds() {
    #expect(MPRISRequest.seek(offset: 5_000_000).action(in: state) == .send([.seek(.relative(5))]))
    #expect(MPRISRequest.seek(offset: -2_500_000).action(in: state) == .send([.seek(.relative(-2.5))]))
  }

  @Test func setPositionIsIgnoredForAnotherTrackOrOutsideThisOne() {
    let current = MPRISMetadata.trackID(of: state)
    #expect(
      MPRISRequest.setPosition(trackID: current, position: 10_000_000).action(in: state)
        == .send([.seek(.absolute(10))]))
    #expect(MPRISRequest.setPosition(trackID: "/org/splay/track/0", position: 1).action(in: state) == .nothing)
    #expect(MPRISRequest.setPosition(trackID: current, position: -1).action(in: state) == .nothing)
    #expect(MPRISRequest.setPosition(trackID: current, position: 90_000_001).action(in: state) == .nothing)
    #expect(
      MPRISRequest.setPosition(trackID: MPRISMetadata.noTrack, position: 0).action(in: .initial) == .nothing)
  }

  @Test func openUriLoadsAndPlaysLocalFilesAndStreams() {
    #expect(
      MPRISRequest.openURI("file:///music/a%20b.flac").action(in: state)
        == .send([.load(["/music/a b.flac"]), .play]))
    #expect(
      MPRISRequest.openURI("https://radio.example/live").action(in: state)
        == .send([.load(["https://radio.example/live"]), .play]))
    guard case .refuse(let error) = MPRISRequest.openURI("smb://nas/a.mp3").action(in: state) else {
      Issue.record("a URL of another scheme is refused")
      return
    }
    #expect(error.name == "org.freedesktop.DBus.Error.InvalidArgs")
  }

  @Test func propertyWritesAreCommands() {
    #expect(MPRISRequest.setLoopStatus("Track").action(in: state) == .send([.repeatMode(.one)]))
    #expect(MPRISRequest.setLoopStatus("Playlist").action(in: state) == .send([.repeatMode(.all)]))
    #expect(MPRISRequest.setLoopStatus("None").action(in: state) == .send([.repeatMode(.off)]))
    #expect(MPRISRequest.setShuffle(true).action(in: state) == .send([.shuffle(true)]))
    #expect(MPRISRequest.setVolume(0.5).action(in: state) == .send([.volume(.absolute(50))]))
    #expect(MPRISRequest.setVolume(0.333).action(in: state) == .send([.volume(.absolute(33))]))
    #expect(MPRISRequest.setVolume(-0.2).action(in: state) == .send([.volume(.absolute(0))]))
    #expect(MPRISRequest.setVolume(1.7).action(in: state) == .send([.volume(.absolute(100))]))
    #expect(MPRISRequest.setRate(0).action(in: state) == .send([.pause]), "the spec: rate 0 pauses")
    #expect(MPRISRequest.setRate(2).action(in: state) == .nothing)
    guard case .refuse = MPRISRequest.setLoopStatus("Forever").action(in: state),
      case .refuse = MPRISRequest.setVolume(.nan).action(in: state)
    else {
      Issue.record("bad values are refused")
      return
    }
  }

  @Test func playerErrorsAreNamedByTheirCode() {
    let invalid = MPRISError(.invalidState(command: "pause", state: "stopped"))
    #expect(invalid.name == "org.splay.Error.InvalidState")
    #expect(invalid.message == "pause is not possible while stopped")
    #expect(MPRISError(.timeout(command: "pause", seconds: 3)).name == "org.splay.Error.Timeout")
    #expect(MPRISError(.outputLost(detail: "x")).name == "org.splay.Error.OutputLost")
    #expect(MPRISError(.fileNotFound(path: "/x\u{0}y")).message == "/x\u{FFFD}y: no such file")
    #expect(MPRISError.cancelled.name == "org.splay.Error.Cancelled")
  }
}
