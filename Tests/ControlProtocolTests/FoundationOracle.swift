// Foundation's JSONDecoder as the oracle for the lines ControlProtocol writes: these types read the protocol
// as docs/protocol.md documents it, independently of StateJSON and StateReading, and a line must decode here
// to the value that was written.

import ControlProtocol
import Foundation
import PlayerCore

/// A state as Foundation reads it.
struct OracleState: Decodable {
  let value: PlayerState

  private enum Keys: String, CodingKey {
    case status, error, track, position, volume, queueLength, queueRevision, index, revision, device
    case repeatMode = "repeat"
    case shuffle, muted
  }

  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    let name = try c.decode(String.self, forKey: .status)
    let status: PlaybackStatus
    switch name {
    case "idle": status = .idle
    case "playing": status = .playing
    case "paused": status = .paused
    case "stopped": status = .stopped
    case "ended": status = .ended
    case "failed": status = .failed(try c.decode(OracleError.self, forKey: .error).value)
    default: throw DecodingError.dataCorruptedError(forKey: .status, in: c, debugDescription: "status \(name)")
    }
    value = PlayerState(
      status: status,
      track: try c.decodeIfPresent(OracleTrack.self, forKey: .track)?.value,
      position: try c.decode(OraclePosition.self, forKey: .position).value,
      volume: try c.decode(Int.self, forKey: .volume),
      index: try c.decodeIfPresent(Int.self, forKey: .index),
      revision: try c.decode(UInt64.self, forKey: .revision),
      device: try c.decodeIfPresent(String.self, forKey: .device),
      repeatMode: RepeatMode(rawValue: try c.decode(String.self, forKey: .repeatMode)) ?? .off,
      shuffle: try c.decode(Bool.self, forKey: .shuffle),
      muted: try c.decode(Bool.self, forKey: .muted),
      queueRevision: try c.decode(UInt64.self, forKey: .queueRevision)
    ).withQueueLength(try c.decode(Int.self, forKey: .queueLength))
  }
}

/// A position as Foundation reads it.
struct OraclePosition: Decodable {
  let value: ConfirmedPosition

  private enum Keys: String, CodingKey { case seconds, confirmedAt, rate, movesAt }

  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    value = ConfirmedPosition(
      seconds: try c.decode(Double.self, forKey: .seconds),
      confirmedAt: try c.decode(UInt64.self, forKey: .confirmedAt),
      rate: try c.decode(Double.self, forKey: .rate), movesAt: try c.decodeIfPresent(UInt64.self, forKey: .movesAt))
  }
}

/// A track as Foundation reads it; its `duration` must be the one its fields give.
struct OracleTrack: Decodable {
  let value: TrackInfo

  private enum Keys: String, CodingKey {
    case path, format, sampleRate, channels, frames, duration, title, artist, album, trackNumber, date, bitDepth
    case bitrate, damage, replayGain, live
  }

  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    value = TrackInfo(
      path: try c.decode(String.self, forKey: .path), format: try c.decode(String.self, forKey: .format),
      sampleRate: try c.decode(Int.self, forKey: .sampleRate), channels: try c.decode(Int.self, forKey: .channels),
      frames: try c.decode(Int64.self, forKey: .frames), title: try c.decodeIfPresent(String.self, forKey: .title),
      artist: try c.decodeIfPresent(String.self, forKey: .artist),
      album: try c.decodeIfPresent(String.self, forKey: .album),
      trackNumber: try c.decodeIfPresent(String.self, forKey: .trackNumber),
      date: try c.decodeIfPresent(String.self, forKey: .date),
      bitDepth: try c.decodeIfPresent(Int.self, forKey: .bitDepth),
      bitrate: try c.decodeIfPresent(Int.self, forKey: .bitrate),
      damage: try c.decodeIfPresent(String.self, forKey: .damage),
      gain: try c.decodeIfPresent(OracleGain.self, forKey: .replayGain)?.value,
      isLive: try c.decodeIfPresent(Bool.self, forKey: .live) ?? false)
    // A live stream has no duration member; every other track has its derived one.
    let duration = try c.decodeIfPresent(Double.self, forKey: .duration) ?? .infinity
    guard duration == value.duration else {
      throw DecodingError.dataCorruptedError(forKey: .duration, in: c, debugDescription: "duration \(duration)")
    }
  }
}

/// A ReplayGain as Foundation reads it: decibels, and a source among those the protocol names.
struct OracleGain: Decodable {
  let value: AppliedGain

  private enum Keys: String, CodingKey {
    case decibels, source
  }

  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    let name = try c.decode(String.self, forKey: .source)
    guard let source = AppliedGain.Source(rawValue: name) else {
      throw DecodingError.dataCorruptedError(forKey: .source, in: c, debugDescription: "source \(name)")
    }
    value = AppliedGain(decibels: try c.decode(Double.self, forKey: .decibels), source: source)
  }
}

/// An error as Foundation reads it; its `message` must be the one its fields give.
struct OracleError: Decodable {
  let value: PlayerError

  private enum Keys: String, CodingKey {
    case code, message, path, url, detail, server, sink, operation, command, state, seconds, what, limit
  }

  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    func text(_ key: Keys) throws -> String { try c.decode(String.self, forKey: key) }
    let code = try text(.code)
    switch code {
    case "file-not-found": value = .fileNotFound(path: try text(.path))
    case "permission-denied": value = .permissionDenied(path: try text(.path))
    case "not-a-file": value = .notAFile(path: try text(.path))
    case "no-tracks": value = .noTracks(path: try text(.path))
    case "unsupported-format": value = .unsupportedFormat(path: try text(.path), detail: try text(.detail))
    case "stream-failed": value = .streamFailed(url: try text(.url), detail: try text(.detail))
    case "output-unavailable": value = .outputUnavailable(server: try text(.server), detail: try text(.detail))
    case "sink-not-found": value = .sinkNotFound(server: try text(.server), sink: try text(.sink))
    case "output-lost": value = .outputLost(detail: try text(.detail))
    case "output-failed": value = .outputFailed(operation: try text(.operation), detail: try text(.detail))
    case "invalid-state": value = .invalidState(command: try text(.command), state: try text(.state))
    case "timeout": value = .timeout(command: try text(.command), seconds: try c.decode(Double.self, forKey: .seconds))
    case "cancelled": value = .cancelled
    case "limit-exceeded": value = .limitExceeded(what: try text(.what), limit: try c.decode(Int.self, forKey: .limit))
    default: throw DecodingError.dataCorruptedError(forKey: .code, in: c, debugDescription: "code \(code)")
    }
    guard try text(.message) == value.message else {
      throw DecodingError.dataCorruptedError(forKey: .message, in: c, debugDescription: "message")
    }
  }
}

/// A request id as Foundation reads it: an integer or a string.
struct OracleID: Decodable {
  let value: RequestID

  init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if let number = try? c.decode(Int64.self) {
      value = .number(number)
    } else {
      value = .string(try c.decode(String.self))
    }
  }
}

/// A reply or event line as Foundation reads it.
struct OracleLine: Decodable {
  struct Failure: Decodable {
    var code: String
    var message: String
    var details: OracleError?
  }

  struct Page: Decodable {
    var length: Int
    var offset: Int
    var paths: [String]
    var revision: UInt64
  }

  private var rawID: OracleID?
  var ok: Bool?
  var event: String?
  private var rawState: OracleState?
  var error: Failure?
  var skipped: [String]?
  var queue: Page?

  private enum CodingKeys: String, CodingKey {
    case rawID = "id"
    case ok, event
    case rawState = "state"
    case error, skipped, queue
  }

  var id: RequestID? { rawID?.value }
  var state: PlayerState? { rawState?.value }

  static func decode(_ line: String) throws -> OracleLine {
    try JSONDecoder().decode(OracleLine.self, from: Data(line.utf8))
  }
}
