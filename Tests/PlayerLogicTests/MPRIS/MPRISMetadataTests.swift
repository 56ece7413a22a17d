import PlayerCore
import PlayerLibrary
import Testing

/// `Metadata`, track ids and file URLs.
@Suite struct MPRISMetadataTests {
  @Test func aTaggedTrackHasEveryField() {
    let metadata = MPRISMetadata.metadata(of: MPRISPropertiesTests.playing(), directory: "/home/me")
    #expect(
      metadata == [
        "mpris:trackid": .objectPath("/org/splay/track/1"),
        "mpris:length": .int64(90_000_000),
        "xesam:title": .string("A #1"),
        "xesam:artist": .strings(["Über Band"]),
        "xesam:album": .string("Songs"),
        "xesam:trackNumber": .int32(3),
        "xesam:url": .string("file:///home/me/music/%C3%9Cber%20Band/03%20A%20%231%3F.flac"),
      ])
  }

  @Test func theCoverIsAFileURLMadeAbsoluteLikeTheTracks() {
    let state = MPRISPropertiesTests.playing()
    let metadata = MPRISMetadata.metadata(of: state, directory: "/home/me", coverArt: "music/Über Band/cover #1.jpg")
    #expect(metadata["mpris:artUrl"] == .string("file:///home/me/music/%C3%9Cber%20Band/cover%20%231.jpg"))
    #expect(MPRISMetadata.metadata(of: .initial, directory: "/", coverArt: "/a/cover.jpg")["mpris:artUrl"] == nil)
  }

  @Test func nothingLoadedIsNoTrack() {
    #expect(
      MPRISMetadata.metadata(of: .initial, directory: "/") == ["mpris:trackid": .objectPath(MPRISMetadata.noTrack)])
    #expect(MPRISMetadata.trackID(of: .initial) == "/org/mpris/MediaPlayer2/TrackList/NoTrack")
  }

  @Test func anUntaggedTrackIsTitledByItsFileName() {
    var state = MPRISPropertiesTests.playing()
    state.track = TrackInfo(path: "/tmp/x/noise.wav", format: "WAV", sampleRate: 8_000, channels: 1, frames: 0)
    let metadata = MPRISMetadata.metadata(of: state, directory: "/")
    #expect(metadata["xesam:title"] == .string("noise.wav"))
    #expect(metadata["mpris:length"] == nil, "no length to tell")
    #expect(metadata["xesam:artist"] == nil)
    #expect(metadata["xesam:trackNumber"] == nil)
    #expect(metadata["xesam:url"] == .string("file:///tmp/x/noise.wav"))
  }

  @Test func nulInATagIsReplacedNotCutShort() {
    var state = MPRISPropertiesTests.playing()
    state.track?.title = "Side A\u{0}Side B"
    state.track?.artist = "\u{0}"
    let metadata = MPRISMetadata.metadata(of: state, directory: "/")
    #expect(metadata["xesam:title"] == .string("Side A\u{FFFD}Side B"))
    #expect(metadata["xesam:artist"] == .strings(["\u{FFFD}"]))
    #expect(MPRISValue.busText("plain") == "plain")
  }

  @Test func theTrackNumberIsTheLeadingInteger() {
    #expect(MPRISMetadata.leadingNumber("3/12") == 3)
    #expect(MPRISMetadata.leadingNumber("07") == 7)
    #expect(MPRISMetadata.leadingNumber(" 4 of 9") == 4)
    #expect(MPRISMetadata.leadingNumber("A1") == nil)
    #expect(MPRISMetadata.leadingNumber("") == nil)
    #expect(MPRISMetadata.leadingNumber("99999999999") == nil, "does not fit an Int32")
  }

  @Test func fileURLsRoundTrip() {
    for path in ["/a b/c.flac", "/Ünïcödé/日本.mp3", "/100%/#?&=+;.ogg", "/"] {
      let url = FileURL.encode(path, relativeTo: "/")
      #expect(url.allSatisfy { $0.isASCII && $0 != " " && $0 != "#" && $0 != "?" }, "\(url)")
      #expect(FileURL.path(from: url) == path)
    }
    #expect(FileURL.encode("song.flac", relativeTo: "/home/me/") == "file:///home/me/song.flac")
  }

  @Test func onlyLocalFileURLsNameAPath() {
    #expect(FileURL.path(from: "file:///music/a%20b.flac") == "/music/a b.flac")
    #expect(FileURL.path(from: "FILE:///x.flac") == "/x.flac")
    #expect(FileURL.path(from: "file://localhost/x.flac") == "/x.flac")
    #expect(FileURL.path(from: "file:///x.flac?query#fragment") == "/x.flac")
    #expect(FileURL.path(from: "file://server/x.flac") == nil, "a remote host")
    #expect(FileURL.path(from: "http://example.com/x.mp3") == nil)
    #expect(FileURL.path(from: "/x.flac") == nil, "a path is not a URL")
    #expect(FileURL.path(from: "file:///x%2") == nil, "a cut escape")
    #expect(FileURL.path(from: "file:///x%zz") == nil)
    #expect(FileURL.path(from: "file:///x%00y") == nil, "no NUL in a path")
    #expect(FileURL.path(from: "file:///x%FF") == nil, "not UTF-8")
  }
}
