import Foundation
import PlayerCore
import PropertyBased
import Testing

@testable import ControlProtocol

/// The lines the server writes by hand (`JSONWriter`, StateJSON) read back as the values written: by
/// Foundation's `JSONDecoder` (FoundationOracle.swift, the protocol as docs/protocol.md documents it) and by
/// `ControlMessage.read`, which `splay ctl` uses. A field added without its writer, a key misspelt or a string
/// escaped wrongly fails here.
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
      .unsupportedFormat(path: awkward, detail: text), .streamFailed(url: awkward, detail: text),
      .outputUnavailable(server: awkward, detail: text), .outputLost(detail: awkward),
      .outputFailed(operation: text, detail: awkward), .invalidState(command: text, state: awkward),
      .timeout(command: awkward, seconds: seconds), .cancelled, .limitExceeded(what: text, limit: Int(frames % 1000)),
      .noTracks(path: awkward), .sinkNotFound(server: text, sink: awkward),
    ]
    let track = TrackInfo(
      path: "/music/\(awkward)/\(text).flac", format: text, sampleRate: 44_100, channels: 2, frames: frames,
      title: awkward.isEmpty ? nil : awkward, artist: text, album: nil, trackNumber: full(frames) ? "3/12" : nil,
      date: full(frames) ? text : nil, bitDepth: full(frames) ? 24 : nil, bitrate: full(frames) ? Int(frames) : nil,
      damage: full(frames) ? awkward : nil,
      gain: full(frames)
        ? AppliedGain(decibels: seconds / 1e8, source: AppliedGain.Source.allCases[Int(frames / 2 % 3)]) : nil,
      isLive: frames % 5 == 1)
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

  @Test func everyMessageReadsBackAsWrittenByFoundationAndByTheClient() async {
    await propertyCheck(
      count: 500, input: Self.text, Self.awkwardText, Gen.double(in: -1e9...1e9), Gen.int64(in: 0...(1 << 40)),
      Gen.int(in: 0...13), Gen.int64(in: .min ... .max)
    ) { text, awkward, seconds, frames, error, number in
      let state = Self.state(text: text, awkward: awkward, seconds: seconds, frames: frames, error: error)
      // What a client receives: the queue as its length, not its paths.
      let received = state.withQueueLength(state.queueLength)
      let timeout = PlayerError.timeout(command: awkward, seconds: seconds)
      let page = QueuePage(length: Int(frames), offset: 1, paths: [text, awkward], revision: UInt64(frames))
      let messages: [ControlMessage] = [
        .success(id: .number(frames), state: state), .success(id: .number(number), state: state),
        .success(id: .string(text), state: state, skipped: [awkward, text]), .success(id: nil, state: state),
        .event(state), .failure(id: .string(text), code: "bad-request", message: awkward, error: nil),
        .failure(id: nil, code: "timeout", message: text, error: timeout), .queue(id: .number(number), page: page),
      ]
      for message in messages {
        let line = message.line()
        #expect(line.hasSuffix("\n") && !line.dropLast().contains("\n"))
        let oracle = try OracleLine.decode(line)
        let client = ControlMessage.read(Array(line.utf8.dropLast()))
        switch message {
        case .success(let id, _, let skipped):
          #expect(oracle.id == id && oracle.ok == true && oracle.state == received && (oracle.skipped ?? []) == skipped)
          #expect(client == .success(id: id, state: received, skipped: skipped))
        case .event:
          #expect(oracle.event == "state" && oracle.ok == nil && oracle.state == received)
          #expect(client == .event(received))
        case .failure(let id, let code, let text, let details):
          #expect(oracle.id == id && oracle.ok == false && oracle.state == nil)
          #expect(
            oracle.error?.code == code && oracle.error?.message == text && oracle.error?.details?.value == details)
          #expect(client == message)
        case .queue(let id, let page):
          #expect(oracle.id == id && oracle.ok == true)
          #expect(oracle.queue.map { [$0.length, $0.offset] } == [page.length, page.offset])
          #expect(oracle.queue?.paths == page.paths && oracle.queue?.revision == page.revision)
          #expect(client == message)
        }
      }
      #expect(ControlMessage.event(state).line() == "{\"event\":\"state\",\"state\":\(state.jsonText)}\n")
      if let track = state.track {
        #expect(try JSONDecoder().decode(OracleTrack.self, from: Data(track.jsonText.utf8)).value == track)
      }
    }
  }

  @Test func keysAreSortedAsFoundationSortsThem() throws {
    // Numbers that both write alike (JSONSerialization writes 4.5e-05 as 0.000045).
    let state = Self.state(text: "t", awkward: "a", seconds: 1.5, frames: 88_200, error: 0)
    let line = ControlMessage.success(id: .number(1), state: state, skipped: ["s"]).line()
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
    let sorted = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    #expect(String(decoding: sorted, as: UTF8.self) + "\n" == line)
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
  /// `play --json`'s queue line is the page's JSON under `queue`, as Foundation reads it.
  @Test func aQueuePageLineIsReadByFoundation() throws {
    let page = QueuePage(length: 3, offset: 1, paths: ["/a \"b\"/ü.flac", "/c\\d.mp3"], revision: 7)
    let decoded = try OracleLine.decode(page.jsonText)
    #expect(decoded.queue?.paths == page.paths && decoded.queue?.length == 3 && decoded.queue?.offset == 1)
    #expect(decoded.queue?.revision == 7)
  }
}
