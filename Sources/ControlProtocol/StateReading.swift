// The protocol's values read back from the JSON that StateJSON writes: how a client in Swift (`splay ctl`)
// reads replies, with the JSONReader that reads requests. Each reader takes exactly what its writer writes.

import PlayerCore

extension JSONValue {
  var text: String? {
    guard case .string(let text) = self else { return nil }
    return text
  }

  var flag: Bool? {
    guard case .bool(let flag) = self else { return nil }
    return flag
  }

  /// A number that is a whole `Int64`, read digit by digit (`1e2` is 100).
  var whole: Int64? {
    guard case .number(let text) = self, case .whole(let value) = JSONNumber.wholeValue(of: text) else { return nil }
    return value
  }

  var int: Int? { whole.flatMap { Int(exactly: $0) } }

  var unsigned: UInt64? { whole.flatMap { UInt64(exactly: $0) } }

  var double: Double? {
    guard case .number(let text) = self else { return nil }
    return Double(text)
  }

  var elements: [JSONValue]? {
    guard case .array(let elements) = self else { return nil }
    return elements
  }

  /// The member `key` read by `read`: nil when it is absent or null, a failure (`.none`) when it is the wrong type.
  func optional<T>(_ key: String, _ read: (JSONValue) -> T?) -> T?? {
    switch self[key] {
    case nil, .null?: return .some(nil)
    case let value?: return read(value).map { .some($0) }
    }
  }
}

extension PlayerState {
  /// The state a protocol line carries, as ``jsonText`` writes it; nil when `json` is not one. Its queue is
  /// the length and revision only (``queueLength``): the paths are read with the `queue` request.
  init?(json: JSONValue) {
    guard let statusName = json["status"]?.text, let position = json["position"].flatMap(ConfirmedPosition.init(json:)),
      let volume = json["volume"]?.int, let revision = json["revision"]?.unsigned,
      let queueLength = json["queueLength"]?.int, let queueRevision = json["queueRevision"]?.unsigned,
      // Absent from the states of servers older than these fields: the modes as they were then.
      case .some(let muted) = json.optional("muted", \.flag),
      case .some(let shuffle) = json.optional("shuffle", \.flag),
      case .some(let repeatMode) = json.optional("repeat", { $0.text.flatMap(RepeatMode.init(rawValue:)) }),
      case .some(let index) = json.optional("index", \.int),
      case .some(let device) = json.optional("device", \.text),
      case .some(let track) = json.optional("track", TrackInfo.init(json:))
    else { return nil }
    let status: PlaybackStatus
    switch statusName {
    case "idle": status = .idle
    case "playing": status = .playing
    case "paused": status = .paused
    case "stopped": status = .stopped
    case "ended": status = .ended
    case "failed":
      guard let error = json["error"].flatMap(PlayerError.init(json:)) else { return nil }
      status = .failed(error)
    default: return nil
    }
    self = PlayerState(
      status: status, track: track, position: position, volume: volume, index: index, revision: revision,
      device: device, repeatMode: repeatMode ?? .off, shuffle: shuffle ?? false, muted: muted ?? false,
      queueRevision: queueRevision
    ).withQueueLength(queueLength)
  }
}

extension ConfirmedPosition {
  /// The position as ``PlayerState/jsonText`` writes it, or nil.
  init?(json: JSONValue) {
    guard let seconds = json["seconds"]?.double, let confirmedAt = json["confirmedAt"]?.unsigned,
      let rate = json["rate"]?.double, case .some(let movesAt) = json.optional("movesAt", \.unsigned)
    else { return nil }
    self.init(seconds: seconds, confirmedAt: confirmedAt, rate: rate, movesAt: movesAt)
  }
}

extension TrackInfo {
  /// The track as ``jsonText`` writes it (its `duration` is derived, so not read), or nil.
  init?(json: JSONValue) {
    guard let path = json["path"]?.text, let format = json["format"]?.text,
      let sampleRate = json["sampleRate"]?.int, let channels = json["channels"]?.int,
      let frames = json["frames"]?.whole,
      case .some(let title) = json.optional("title", \.text),
      case .some(let artist) = json.optional("artist", \.text),
      case .some(let album) = json.optional("album", \.text),
      case .some(let trackNumber) = json.optional("trackNumber", \.text),
      case .some(let date) = json.optional("date", \.text),
      case .some(let bitDepth) = json.optional("bitDepth", \.int),
      case .some(let bitrate) = json.optional("bitrate", \.int),
      case .some(let damage) = json.optional("damage", \.text),
      case .some(let gain) = json.optional("replayGain", AppliedGain.init(json:)),
      case .some(let live) = json.optional("live", \.flag)
    else { return nil }
    self.init(
      path: path, format: format, sampleRate: sampleRate, channels: channels, frames: frames, title: title,
      artist: artist, album: album, trackNumber: trackNumber, date: date, bitDepth: bitDepth, bitrate: bitrate,
      damage: damage, gain: gain, isLive: live ?? false)
  }
}

extension AppliedGain {
  /// The gain as ``TrackInfo/jsonText`` writes it, or nil.
  init?(json: JSONValue) {
    guard let decibels = json["decibels"]?.double, let source = json["source"]?.text.flatMap(Source.init(rawValue:))
    else { return nil }
    self.init(decibels: decibels, source: source)
  }
}

extension PlayerError {
  /// The error as a state's `error` or a failure's `details` carries it, or nil for a code this version does
  /// not know.
  init?(json: JSONValue) {
    func text(_ key: String) -> String { json[key]?.text ?? "" }
    switch json["code"]?.text {
    case "file-not-found": self = .fileNotFound(path: text("path"))
    case "permission-denied": self = .permissionDenied(path: text("path"))
    case "not-a-file": self = .notAFile(path: text("path"))
    case "no-tracks": self = .noTracks(path: text("path"))
    case "unsupported-format": self = .unsupportedFormat(path: text("path"), detail: text("detail"))
    case "stream-failed": self = .streamFailed(url: text("url"), detail: text("detail"))
    case "output-unavailable": self = .outputUnavailable(server: text("server"), detail: text("detail"))
    case "sink-not-found": self = .sinkNotFound(server: text("server"), sink: text("sink"))
    case "output-lost": self = .outputLost(detail: text("detail"))
    case "output-failed": self = .outputFailed(operation: text("operation"), detail: text("detail"))
    case "invalid-state": self = .invalidState(command: text("command"), state: text("state"))
    case "timeout": self = .timeout(command: text("command"), seconds: json["seconds"]?.double ?? 0)
    case "cancelled": self = .cancelled
    case "limit-exceeded": self = .limitExceeded(what: text("what"), limit: json["limit"]?.int ?? 0)
    default: return nil
    }
  }
}

extension QueuePage {
  /// The page as a `queue` reply carries it, or nil.
  init?(json: JSONValue) {
    guard let length = json["length"]?.int, let offset = json["offset"]?.int,
      let paths = json["paths"]?.elements, let revision = json["revision"]?.unsigned
    else { return nil }
    let texts = paths.compactMap(\.text)
    guard texts.count == paths.count else { return nil }
    self.init(length: length, offset: offset, paths: texts, revision: revision)
  }
}

extension RequestID {
  /// The id as a reply echoes it: an integer or a string.
  init?(json: JSONValue) {
    if let number = json.whole {
      self = .number(number)
    } else if let text = json.text {
      self = .string(text)
    } else {
      return nil
    }
  }
}
