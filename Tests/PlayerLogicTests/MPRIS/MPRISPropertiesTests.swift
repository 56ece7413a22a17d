import PlayerCore
import Testing

/// The mapping of confirmed states to MPRIS properties, without a bus.
@Suite struct MPRISPropertiesTests {
  static let track = TrackInfo(
    path: "music/Über Band/03 A #1?.flac", format: "FLAC", sampleRate: 44_100, channels: 2, frames: 44_100 * 90,
    title: "A #1", artist: "Über Band", album: "Songs", trackNumber: "3/12")

  static func playing(at seconds: Double = 10, index: Int = 1, confirmedAt: UInt64 = 5_000_000_000) -> PlayerState {
    PlayerState(
      status: .playing, track: track, position: ConfirmedPosition(seconds: seconds, confirmedAt: confirmedAt, rate: 1),
      volume: 40, queue: ["a.flac", track.path, "c.flac"], index: index, revision: 7)
  }

  @Test func everyStatusMapsToPlayingPausedOrStopped() {
    #expect(MPRISProperties.playbackStatus(.playing) == "Playing")
    #expect(MPRISProperties.playbackStatus(.paused) == "Paused")
    for status: PlaybackStatus in [.idle, .stopped, .ended, .failed(.outputLost(detail: "gone"))] {
      #expect(MPRISProperties.playbackStatus(status) == "Stopped", "\(status)")
    }
  }

  @Test func loopStatusIsTheRepeatModeBothWays() {
    #expect(RepeatMode.allCases.map(MPRISProperties.loopStatus) == ["None", "Playlist", "Track"])
    for mode in RepeatMode.allCases {
      #expect(MPRISProperties.repeatMode(loopStatus: MPRISProperties.loopStatus(mode)) == mode)
    }
    #expect(MPRISProperties.repeatMode(loopStatus: "none") == nil, "the names are case-sensitive")
  }

  @Test func thePlayerPropertiesHaveTheSpecsTypes() {
    let properties = MPRISProperties.player(of: Self.playing(), directory: "/home/me")
    let signatures = properties.mapValues(\.signature)
    #expect(
      signatures == [
        "PlaybackStatus": "s", "LoopStatus": "s", "Rate": "d", "Shuffle": "b", "Metadata": "a{sv}", "Volume": "d",
        "MinimumRate": "d", "MaximumRate": "d", "CanGoNext": "b", "CanGoPrevious": "b", "CanPlay": "b",
        "CanPause": "b", "CanSeek": "b", "CanControl": "b",
      ])
    #expect(properties["Position"] == nil, "read on demand, never announced")
    #expect(properties["Volume"] == .double(0.4))
    #expect(properties["Rate"] == .double(1))
    let root = MPRISProperties.root.mapValues(\.signature)
    #expect(
      root == [
        "CanQuit": "b", "CanRaise": "b", "HasTrackList": "b", "Identity": "s", "SupportedUriSchemes": "as",
        "SupportedMimeTypes": "as",
      ])
    #expect(MPRISProperties.root["Identity"] == .string("splay"))
    #expect(MPRISProperties.root["DesktopEntry"] == nil)
  }

  @Test func capabilitiesFollowTheState() {
    func can(_ state: PlayerState) -> [String] {
      MPRISProperties.player(of: state, directory: "/").filter { $0.key.hasPrefix("Can") && $0.value == .boolean(true) }
        .keys.sorted()
    }
    #expect(can(.initial) == ["CanControl"])
    let playing = Self.playing()
    #expect(can(playing) == ["CanControl", "CanGoNext", "CanGoPrevious", "CanPause", "CanPlay", "CanSeek"])
    var stopped = playing
    stopped.status = .stopped
    #expect(can(stopped) == ["CanControl", "CanGoNext", "CanGoPrevious", "CanPlay", "CanSeek"], "pause needs play")
    var last = playing
    last.index = 2
    #expect(!can(last).contains("CanGoNext"))
    last.repeatMode = .all
    #expect(can(last).contains("CanGoNext"), "repeating all wraps around")
    var first = playing
    first.index = 0
    #expect(!can(first).contains("CanGoPrevious"))
    var ended = playing
    ended.status = .ended
    #expect(can(ended) == ["CanControl", "CanPlay"], "play starts the queue again")
    var failed = playing
    failed.status = .failed(.outputLost(detail: "gone"))
    #expect(can(failed) == ["CanControl", "CanPlay"])
  }

  @Test func onlyTheChangedPropertiesAreAnnounced() {
    let before = MPRISProperties.player(of: Self.playing(), directory: "/")
    var paused = Self.playing(at: 12, confirmedAt: 7_000_000_000)
    paused.status = .paused
    paused.position.rate = 0
    let after = MPRISProperties.player(of: paused, directory: "/")
    #expect(MPRISProperties.changes(from: before, to: after) == ["PlaybackStatus"])
    var stopped = paused
    stopped.status = .stopped
    stopped.volume = 50
    let last = MPRISProperties.player(of: stopped, directory: "/")
    #expect(MPRISProperties.changes(from: after, to: last) == ["CanPause", "PlaybackStatus", "Volume"])
    #expect(
      MPRISProperties.changes(from: before, to: before).isEmpty, "a new position alone changes no property")
  }

  @Test func positionMovesOnFromTheConfirmationAndStopsAtTheEnd() {
    let state = Self.playing(at: 10, confirmedAt: 5_000_000_000)
    #expect(MPRISProperties.position(of: state, at: 5_000_000_000) == 10_000_000)
    #expect(MPRISProperties.position(of: state, at: 7_500_000_000) == 12_500_000)
    #expect(MPRISProperties.position(of: state, at: 500_000_000_000) == 90_000_000, "clamped to the length")
    #expect(MPRISProperties.position(of: .initial, at: 1) == 0)
  }
}
