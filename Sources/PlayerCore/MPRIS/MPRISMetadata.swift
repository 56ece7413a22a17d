/// The `Metadata` property of MPRIS (`a{sv}`) and the track ids it carries.
public enum MPRISMetadata {
  /// The track id of "no track", which the spec reserves for an empty player.
  public static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

  /// The `mpris:trackid` of the current track: `/org/splay/track/N`, N its zero-based place in the queue, or
  /// ``noTrack`` when none is open. `SetPosition` is ignored unless its track id is this one.
  public static func trackID(of state: PlayerState) -> String {
    guard state.track != nil, let index = state.index else { return noTrack }
    return "/org/splay/track/\(index)"
  }

  /// The metadata of the current track: its track id, `mpris:length` (µs), `xesam:title` (the tag, or the file
  /// name when untagged, as the live view shows it), `xesam:artist` (a list of one), `xesam:album`,
  /// `xesam:trackNumber` (the leading number of `3/12`), `xesam:url` and `mpris:artUrl` (the `coverArt` picture's
  /// path), each only when known. Only the track id when nothing is open. `directory` makes a relative path
  /// absolute for the URLs (the player's working folder).
  public static func metadata(of state: PlayerState, directory: String, coverArt: String? = nil) -> [String: MPRISValue]
  {
    var entries: [String: MPRISValue] = ["mpris:trackid": .objectPath(trackID(of: state))]
    guard let track = state.track else { return entries }
    // A live stream has no length to give.
    if track.duration > 0, !track.isLive { entries["mpris:length"] = .int64(microseconds(track.duration)) }
    entries["xesam:title"] = .text(track.displayTitle)
    if let artist = track.artist, !artist.isEmpty { entries["xesam:artist"] = .strings([MPRISValue.busText(artist)]) }
    if let album = track.album, !album.isEmpty { entries["xesam:album"] = .text(album) }
    if let number = track.trackNumber.flatMap(leadingNumber) { entries["xesam:trackNumber"] = .int32(number) }
    entries["xesam:url"] = .string(
      StreamURL.isStream(track.path) ? track.path : FileURL.encode(track.path, relativeTo: directory))
    if let coverArt { entries["mpris:artUrl"] = .string(FileURL.encode(coverArt, relativeTo: directory)) }
    return entries
  }

  /// The number a track-number tag starts with: 3 for `3`, `03`, `3/12` or ` 3 of 12`; nil when it does not
  /// start with digits or the number does not fit.
  public static func leadingNumber(_ tag: String) -> Int32? {
    let digits = tag.drop { $0 == " " }.prefix { $0.isASCII && $0.isNumber }
    return Int32(digits)
  }

  /// `seconds` in whole microseconds, the unit of MPRIS times; 0 for a value that is not finite.
  public static func microseconds(_ seconds: Double) -> Int64 {
    let value = (seconds * 1e6).rounded()
    guard value.isFinite else { return 0 }
    return Int64(max(min(value, Double(Int64.max / 2)), Double(Int64.min / 2)))
  }
}
