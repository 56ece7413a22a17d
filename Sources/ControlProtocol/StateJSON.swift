// The JSON of the protocol's values, written field by field (see JSONWriter for why), keys in sorted order:
// the only writer of states and errors (StateReading reads them back). JSONWriterTests holds each line to
// Foundation's JSONDecoder reading it as docs/protocol.md documents it.

import PlayerCore

extension PlayerState {
  /// The state as one line of compact JSON with sorted keys (no newline): what `--json` prints and the socket
  /// sends. `{}` for a position that is not a number, which no output reports.
  public var jsonText: String {
    var json = JSONWriter()
    guard (try? write(to: &json)) != nil else { return "{}" }
    return json.text
  }

  func write(to json: inout JSONWriter) throws {
    try json.object { json in try writeMembers(to: &json) }
  }

  /// Writes the state's members into an object that is open.
  func writeMembers(to json: inout JSONWriter) throws {
    if let device { json.field("device", device) }
    if case .failed(let error) = status { try json.field("error") { json in try error.write(members: &json) } }
    if let index { json.field("index", index) }
    json.field("muted", muted)
    try json.field("position") { json in try position.write(members: &json) }
    json.field("queueLength", queueLength)
    json.field("queueRevision", queueRevision)
    json.field("repeat", repeatMode.rawValue)
    json.field("revision", revision)
    json.field("shuffle", shuffle)
    json.field("status", status.name)
    if let track { try json.field("track") { json in try track.write(members: &json) } }
    json.field("volume", volume)
  }
}

extension ConfirmedPosition {
  func write(members json: inout JSONWriter) throws {
    json.field("confirmedAt", confirmedAt)
    if let movesAt { json.field("movesAt", movesAt) }
    try json.field("rate", rate)
    try json.field("seconds", seconds)
  }
}

extension TrackInfo {
  /// The track as one line of compact JSON with sorted keys (no newline), as ``PlayerState/jsonText`` writes it.
  public var jsonText: String {
    var json = JSONWriter()
    guard (try? json.object({ json in try write(members: &json) })) != nil else { return "{}" }
    return json.text
  }

  func write(members json: inout JSONWriter) throws {
    if let album { json.field("album", album) }
    if let artist { json.field("artist", artist) }
    if let bitDepth { json.field("bitDepth", bitDepth) }
    if let bitrate { json.field("bitrate", bitrate) }
    json.field("channels", channels)
    if let damage { json.field("damage", damage) }
    if let date { json.field("date", date) }
    // A live stream has no length: `live` says so instead.
    if !isLive { try json.field("duration", duration) }
    json.field("format", format)
    json.field("frames", frames)
    json.field("path", path)
    if isLive { json.field("live", true) }
    if let gain { try json.field("replayGain") { json in try gain.write(members: &json) } }
    json.field("sampleRate", sampleRate)
    if let title { json.field("title", title) }
    if let trackNumber { json.field("trackNumber", trackNumber) }
  }
}

extension AppliedGain {
  func write(members json: inout JSONWriter) throws {
    try json.field("decibels", decibels)
    json.field("source", source.rawValue)
  }
}

extension PlayerError {
  func write(members json: inout JSONWriter) throws {
    json.field("code", code)
    switch self {
    case .fileNotFound(let path), .permissionDenied(let path), .notAFile(let path), .noTracks(let path):
      json.field("message", message)
      json.field("path", path)
    case .unsupportedFormat(let path, let detail):
      json.field("detail", detail)
      json.field("message", message)
      json.field("path", path)
    case .streamFailed(let url, let detail):
      json.field("detail", detail)
      json.field("message", message)
      json.field("url", url)
    case .outputUnavailable(let server, let detail):
      json.field("detail", detail)
      json.field("message", message)
      json.field("server", server)
    case .sinkNotFound(let server, let sink):
      json.field("message", message)
      json.field("server", server)
      json.field("sink", sink)
    case .outputLost(let detail):
      json.field("detail", detail)
      json.field("message", message)
    case .outputFailed(let operation, let detail):
      json.field("detail", detail)
      json.field("message", message)
      json.field("operation", operation)
    case .invalidState(let command, let state):
      json.field("command", command)
      json.field("message", message)
      json.field("state", state)
    case .timeout(let command, let seconds):
      json.field("command", command)
      json.field("message", message)
      try json.field("seconds", seconds)
    case .cancelled:
      json.field("message", message)
    case .limitExceeded(let what, let limit):
      json.field("limit", limit)
      json.field("message", message)
      json.field("what", what)
    }
  }
}
