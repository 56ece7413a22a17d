import Foundation
import PlayerCore
import PropertyBased
import Testing

@testable import ControlProtocol

/// The lines the server writes by hand (`JSONWriter`) must be exactly what Foundation's `JSONEncoder` (sorted
/// keys, slashes unescaped) writes from the values' `Codable` conformances, so that a field added to a type
/// without its writer, a key out of order or a string escaped differently fails here.
@Suite struct JSONWriterTests {
  static func foundationLine(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  /// Any Unicode scalar, control characters, quotes, backslashes and slashes included.
  static let text = Gen.uint32(in: 0...0x10_FFFF).map { Character(Unicode.Scalar($0) ?? "\u{FFFD}") }.string(
    of: 0...12)
  static let awkwardText = Gen.element(of: Array("\"\\/\n\r\t\u{8}\u{C}\u{1}\u{1F}\u{7F}aé€😀 "))
    .map { $0 ?? "a" }.string(of: 0...12)

  static func state(text: String, awkward: String, seconds: Double, frames: Int64, error: Int) -> PlayerState {
    let errors: [PlayerError] = [
      .fileNotFound(path: text), .permissionDenied(path: awkward), .notAFile(path: text),
      .unsupportedFormat(path: awkward, detail: text),
      .outputUnavailable(server: awkward, detail: text), .outputLost(detail: awkward),
      .outputFailed(operation: text, detail: awkward), .invalidState(command: text, state: awkward),
      .timeout(command: awkward, seconds: seconds), .cancelled, .limitExceeded(what: text, limit: Int(frames % 1000)),
      .noTracks(path: awkward),
    ]
    let track = TrackInfo(
      path: "/music/\(awkward)/\(text).flac", format: text, sampleRate: 44_100, channels: 2, frames: frames,
      title: awkward.isEmpty ? nil : awkward, artist: text, album: nil, trackNumber: full(frames) ? "3/12" : nil,
      date: full(frames) ? text : nil, bitDepth: full(frames) ? 24 : nil, bitrate: full(frames) ? Int(frames) : nil,
      damage: full(frames) ? awkward : nil)
    let status: PlaybackStatus = error < errors.count ? .failed(errors[error]) : .paused
    // Every other state leaves the optional fields out.
    let full = full(frames)
    return PlayerState(
      status: status, track: full ? track : nil,
      position: ConfirmedPosition(
        seconds: seconds, confirmedAt: UInt64(frames), rate: full ? 1 : 0, movesAt: full ? UInt64(frames) + 7 : nil),
      volume: Int(frames % 101), queue: full ? [text, awkward] : [], index: full ? 1 : nil, revision: UInt64(frames),
      device: full ? awkward : nil, repeatMode: RepeatMode.allCases[Int(frames % 3)], shuffle: frames % 4 == 0,
      muted: frames % 3 == 1)
  }

  private static func full(_ frames: Int64) -> Bool { frames % 2 == 0 }

  @Test func everyStateAndMessageIsWrittenAsFoundationWritesIt() async {
    await propertyCheck(
      count: 500, input: Self.text, Self.awkwardText, Gen.double(in: -1e9...1e9), Gen.int64(in: 0...(1 << 40)),
      Gen.int(in: 0...13), Gen.int64(in: .min ... .max)
    ) { text, awkward, seconds, frames, error, number in
      let state = Self.state(text: text, awkward: awkward, seconds: seconds, frames: frames, error: error)
      let stateLine = try Self.foundationLine(state)
      var json = JSONWriter()
      try state.write(to: &json)
      #expect(json.text == stateLine)
      #expect(state.jsonText == stateLine)
      if let track = state.track { #expect(track.jsonText == (try Self.foundationLine(track))) }
      let timeout = PlayerError.timeout(command: awkward, seconds: seconds)
      let quoted = try Self.foundationLine(text)
      // The envelope's keys in sorted order, around pieces that Foundation wrote.
      let expected: [(ControlMessage, String)] = [
        (.success(id: .number(frames), state: state), "{\"id\":\(frames),\"ok\":true,\"state\":\(stateLine)}"),
        (.success(id: .number(number), state: state), "{\"id\":\(number),\"ok\":true,\"state\":\(stateLine)}"),
        (.success(id: .string(text), state: state), "{\"id\":\(quoted),\"ok\":true,\"state\":\(stateLine)}"),
        (.success(id: nil, state: state), "{\"id\":null,\"ok\":true,\"state\":\(stateLine)}"),
        (.event(state), "{\"event\":\"state\",\"state\":\(stateLine)}"),
        (
          .failure(id: .string(text), code: "bad-request", message: awkward, error: nil),
          "{\"error\":{\"code\":\"bad-request\",\"message\":\(try Self.foundationLine(awkward))},\"id\":\(quoted),\"ok\":false}"
        ),
        (
          .failure(id: nil, code: "timeout", message: text, error: timeout),
          "{\"error\":{\"code\":\"timeout\",\"details\":\(try Self.foundationLine(timeout)),\"message\":\(quoted)},"
            + "\"id\":null,\"ok\":false}"
        ),
      ]
      for (message, line) in expected {
        #expect(message.line() == line + "\n")
      }
    }
  }

  @Test func numbersLookAsFoundationWritesThem() throws {
    let values: [Double] = [
      0, -0.0, 1, -1, 0.1, 1.5, 100, 1e15, 1e16, 1e21, 1.7976931348623157e308, .leastNonzeroMagnitude, 1e-7,
      123_456.789, 2.5e-5,
    ]
    for value in values {
      var json = JSONWriter()
      try json.object { json in try json.field("seconds", value) }
      #expect(json.text == (try Self.foundationLine(["seconds": value])), "\(value)")
    }
    var json = JSONWriter()
    json.object { json in
      json.field("a", Int64.min)
      json.field("b", UInt64.max)
    }
    #expect(json.text == "{\"a\":\(Int64.min),\"b\":\(UInt64.max)}")
  }

  @Test func aPositionThatIsNotANumberMakesAFailureLine() {
    var state = PlayerState()
    state.position = ConfirmedPosition(seconds: .nan, confirmedAt: 0, rate: 0)
    let error =
      "{\"code\":\"output-failed\",\"message\":\"the state could not be written as JSON: a number in it is not finite\"}"
    #expect(ControlMessage.event(state).line() == "{\"error\":\(error),\"event\":\"state\",\"ok\":false}\n")
    // A reply keeps the request's id, so that the client knows which request failed.
    #expect(
      ControlMessage.success(id: .number(7), state: state).line() == "{\"error\":\(error),\"id\":7,\"ok\":false}\n")
    #expect(ControlMessage.success(id: nil, state: state).line() == "{\"error\":\(error),\"id\":null,\"ok\":false}\n")
    var json = JSONWriter()
    #expect(throws: JSONWriterError.self) { try json.field("x", Double.infinity) }
  }
}

extension JSONWriterTests {
  /// A queue page is written as Foundation writes its Codable form, under `queue`.
  @Test func aQueuePageIsWrittenAsFoundationWritesIt() throws {
    let page = QueuePage(length: 3, offset: 1, paths: ["/a \"b\"/ü.flac", "/c\\d.mp3"], revision: 7)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let oracle = String(decoding: try encoder.encode(["queue": page]), as: UTF8.self)
    #expect(page.jsonText == oracle)
    let reply = ControlMessage.queue(id: .number(3), page: page).line()
    let decoded = try JSONDecoder().decode([String: QueuePageOrValue].self, from: Data(reply.utf8))
    #expect(decoded["queue"]?.page == page)
  }
}

/// A member of a reply: the queue page, or anything else (ignored).
private struct QueuePageOrValue: Decodable {
  var page: QueuePage?
  init(from decoder: any Decoder) throws { page = try? QueuePage(from: decoder) }
}

extension JSONWriterTests {
  /// `play --json`'s queue line, written in pieces, is the full page's line: same bytes, pieces near the
  /// size asked for, so that a long queue is never one string in memory.
  @Test func theQueueLineInPiecesIsTheFullPagesLine() {
    var state = PlayerState()
    state.queue = TrackQueue((1...500).map { "/music/\($0) \"x\"\\y ü.flac" })
    state.queueRevision = 9
    var pieces: [[UInt8]] = []
    QueuePage.writeLine(of: state, pieceSize: 1_000) { pieces.append($0) }
    let whole = QueuePage(of: state, offset: 0, count: state.queue.count).jsonText + "\n"
    #expect(String(decoding: pieces.joined(), as: UTF8.self) == whole)
    #expect(pieces.count > 10)
    #expect(pieces.allSatisfy { $0.count < 1_100 })
  }
}
