import Foundation
import PlayerCore
import PropertyBased
import Testing

@testable import ControlProtocol

/// The control socket's request reader (JSONReader and ControlRequest.decode): every valid request is read as
/// what it says, and what JSON does not allow is refused. (The fuzz target holds it to Foundation's reading.)
@Suite struct ControlRequestReaderTests {
  static let text = Gen.uint32(in: 0...0x10_FFFF).map { Character(Unicode.Scalar($0) ?? "\u{FFFD}") }.string(
    of: 0...8)
  static let space = Gen.element(of: [" ", "\t", "\n", "\r", "", "", "  "]).map { $0 ?? "" }

  /// JSON text of a string, as Foundation writes it (escapes included).
  static func quoted(_ string: String) throws -> String {
    String(decoding: try JSONEncoder().encode(string), as: UTF8.self)
  }

  @Test func everyValidRequestIsReadAsItIsWritten() async {
    await propertyCheck(
      count: 500, input: Self.text, Gen.int64(in: .min ... .max), Gen.double(in: -1e6...1e6), Self.space,
      Gen.int(in: 0...5)
    ) { text, number, real, space, shape in
      let id: (json: String, value: RequestID?) =
        switch shape % 3 {
        case 0: ("\(number)", .number(number))
        case 1: (try Self.quoted(String(text.prefix(64))), .string(String(text.prefix(64))))
        default: ("null", nil)
        }
      // An unknown member with nested values of every kind comes first: it must be skipped, whatever it holds.
      let extra = "[\(try Self.quoted(text)),{\"a\":[true,false,null,-0.5e-3]},\(real)]"
      let args = "[\(try Self.quoted(text)),\(number),\(real)]"
      let members = [
        "\"x\"\(space):\(space)\(extra)", "\"id\":\(space)\(id.json)", "\"command\":\(try Self.quoted("seek"))",
        "\"args\":\(space)\(args)",
      ]
      let line = "\(space){\(space)" + members.joined(separator: "\(space),\(space)") + "\(space)}\(space)"
      let read = ControlRequest.decode(Array(line.utf8))
      let expected = ControlRequest.request(
        id: id.value, command: "seek", args: [text, String(number), decimalText(real)])
      #expect(read == expected, "\(line)")
    }
  }

  @Test func aCommandNameReadByBytesIsTheNameReadByCharacters() async {
    // Mostly ASCII with blanks, controls and capitals around and inside, sometimes any scalar at all.
    let ascii = Gen.uint32(in: 0...0x7F).map { Character(Unicode.Scalar($0) ?? " ") }.string(of: 0...10)
    let blanks = Gen.element(of: [" ", "\t", " \t", "\r\n", "\u{0B}", "", "\u{A0}"]).map { $0 ?? "" }
    await propertyCheck(count: 2_000, input: ascii, Self.text, blanks, Gen.int(in: 0...3)) {
      word, any, blank, shape in
      let command = shape == 0 ? blank + any + blank : blank + word.uppercased() + blank + word + blank
      let byCharacters = String(command.drop { $0.isBlank }.reversed().drop { $0.isBlank }.reversed()).lowercased()
      #expect(ControlRequest.commandName(command) == byCharacters, "\(Array(command.unicodeScalars))")
    }
    #expect(ControlRequest.commandName(" \tPaUsE\t ") == "pause")
  }

  @Test func numbersAsArgumentsReadAsJSONDecoderReadsThem() {
    let cases: [(String, String?)] = [
      ("12", "12"), ("-0", "0"), ("1.5", "1.5"), ("1e2", "100"), ("1E+2", "100"), ("-0.0", "0"), ("2.50", "2.5"),
      ("100e-2", "1"), ("1e400", nil), ("9007199254740993.0", "9007199254740993"), ("1e18", "1000000000000000000"),
      ("-1e308", "-1e+308"), ("9223372036854775807.0", "9.223372036854776e+18"), ("1.0000000000000000001", "1"),
      ("12345678901234567890", "1.2345678901234567e+19"), ("43333333333333333.0333", nil), ("1e-400", "0"),
    ]
    for (number, text) in cases {
      let args = JSONReader.read(Array("[\(number)]".utf8))
      #expect(args != nil, "\(number)")
      let line = "{\"command\":\"volume\",\"args\":[\(number)]}"
      let result = ControlRequest.decode(Array(line.utf8))
      if let text {
        #expect(result == ControlRequest.request(id: nil, command: "volume", args: [text]), "\(number)")
      } else {
        #expect(
          result
            == .failure(
              ControlProtocolError(
                id: nil, code: "bad-request", message: "\"args\" must be an array of strings and numbers")),
          "\(number)")
      }
    }
  }

  @Test func whatJSONDoesNotAllowIsRefused() {
    let refused = [
      "", " ", "{\"command\":\"play\",}", "{\"command\":\"pl\u{1}ay\"}", "{\"command\":\"\\ud800\"}",
      "{\"command\":\"\\q\"}", "{\"command\":\"\\u12\"}", "{\"command\":\"play\"} x", "{\"command\":'play'}",
      "{\"command\":\"play\",\"args\":[01]}", "{\"command\":\"play\",\"args\":[1.]}",
      "{\"command\":\"play\",\"args\":[.5]}",
      "{\"command\":\"play\",\"args\":[+1]}", "{\"command\":\"play\",\"args\":[NaN]}", "{\"command\":\"play\"/**/}",
      "\u{0B}{\"command\":\"play\"}",
    ]
    for line in refused {
      #expect(JSONReader.read(Array(line.utf8)) == nil, "\(line.debugDescription)")
    }
    var invalidUTF8 = Array("{\"command\":\"".utf8)
    invalidUTF8 += [0xFF, 0xFE] + Array("\"}".utf8)
    #expect(JSONReader.read(invalidUTF8) == nil)
  }

  @Test func nestingStopsAt512AndARepeatedKeyKeepsItsFirstValue() {
    func nested(_ depth: Int) -> [UInt8] {
      Array(
        ("{\"x\":" + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}").utf8)
    }
    #expect(JSONReader.read(nested(512)) != nil)
    #expect(JSONReader.read(nested(513)) == nil)
    #expect(JSONReader.read(Array("\u{FEFF}{\"a\":1,\"a\":2}".utf8))?["a"] == .number("1"))
    #expect(JSONReader.read(Array("{\"a\":\"\\ud83d\\ude00\\n\\/\"}".utf8))?["a"] == .string("😀\n/"))
  }

  @Test func anIdMustBeAPlainIntegerOrAShortString() {
    let bad = ControlProtocolError(
      id: nil, code: "bad-request", message: "\"id\" must be an integer or a string of at most 256 bytes")
    for id in ["1.0", "1e2", "9223372036854775808", "true", "[]", "\"\(String(repeating: "x", count: 257))\""] {
      #expect(ControlRequest.decode(Array("{\"id\":\(id),\"command\":\"play\"}".utf8)) == .failure(bad), "\(id)")
    }
    #expect(
      ControlRequest.decode(Array("{\"id\":-9223372036854775808,\"command\":\"play\"}".utf8))
        == .success(ControlRequest(id: .number(.min), kind: .player(.play))))
  }
}

extension ControlRequestReaderTests {
  /// The line a client writes (`splay ctl`) is read back as the request it was made from.
  @Test func aRequestLineReadsBackAsTheRequest() throws {
    let kinds: [ControlRequest.Kind] = [
      .player(.seek(.relative(5))), .player(.seek(.absolute(12.345))), .player(.load(["a b.flac", "q\"uote\\.mp3"])),
      .player(.volume(.absolute(40))), .player(.jump(toIndex: 2)), .player(.mute(nil)), .player(.repeatMode(.all)),
      .player(.play), .status, .subscribe, .unsubscribe, .quit, .queue(offset: 3, count: 20),
    ]
    for kind in kinds {
      for id: RequestID? in [.number(7), .string("a"), nil] {
        let request = ControlRequest(id: id, kind: kind)
        #expect(ControlRequest.decode(request.lineBytes().dropLast()) == .success(request), "\(kind)")
      }
    }
    #expect(
      String(decoding: ControlRequest(id: .number(1), kind: .player(.seek(.relative(-5)))).lineBytes(), as: UTF8.self)
        == "{\"args\":[\"-5\"],\"command\":\"seek\",\"id\":1}\n")
  }

  /// Turning such a number into text overflowed Int64 and crashed `splay serve`.
  @Test(arguments: [
    #"{"command": "volume", "args": [-1e308]}"#, #"{"command": "seek", "args": [1e300]}"#,
    #"{"command": "jump", "args": [1e18]}"#, #"{"command": "seek", "args": [-9.3e18]}"#,
  ])
  func hugeNumbersAreRefusedNotACrash(json: String) {
    guard case .failure(let error) = ControlRequest.decode(Array(json.utf8)) else {
      Issue.record("\(json) was accepted")
      return
    }
    #expect(error.code == "bad-arguments" || error.code == "bad-request", "\(error)")
  }
}
