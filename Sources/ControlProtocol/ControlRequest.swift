import PlayerCore

/// One request of the control protocol (docs/protocol.md): a JSON object on one line.
///
/// ```json
/// {"id": 7, "command": "seek", "args": [12.5]}
/// {"id": 8, "command": "volume 40%"}
/// {"command": "subscribe"}
/// ```
public struct ControlRequest: Equatable, Sendable {
  /// What the client asks for.
  public enum Kind: Equatable, Sendable {
    /// A player command; the reply comes when its future settles.
    case player(PlayerCommand)
    /// The state, freshly confirmed by the output.
    case status
    /// Start receiving `{"event": "state"}` lines.
    case subscribe
    /// Stop receiving events.
    case unsubscribe
    /// Stop the server.
    case quit
    /// A page of the queue's paths: `count` of them from `offset` (``QueuePage``).
    case queue(offset: Int, count: Int)
  }

  /// The client's identifier for the request, echoed in the reply (any JSON number or string, or absent).
  public var id: RequestID?
  /// What is asked.
  public var kind: Kind

  /// Creates a request.
  public init(id: RequestID?, kind: Kind) {
    self.id = id
    self.kind = kind
  }

  /// The longest request line accepted, in bytes.
  public static let maximumLineLength = 64 * 1024

  /// Decodes one line (without its newline). Errors carry the request's id when it could be read.
  public static func decode(_ line: some Collection<UInt8>) -> Result<ControlRequest, ControlProtocolError> {
    guard line.count <= maximumLineLength else {
      return .failure(
        ControlProtocolError(id: nil, code: "line-too-long", message: "request longer than \(maximumLineLength) bytes"))
    }
    switch RawRequest.read(line) {
    case .success(let raw): return request(id: raw.id, command: raw.command, args: raw.args)
    case .failure(let error): return .failure(error)
    }
  }

  /// The request that an object with these `id`, `command` and `args` members asks for: what a client such as
  /// `splay ctl` checks a command line with before it sends it (``lineBytes()``).
  public static func request(id: RequestID?, command: String, args: [String]?) -> Result<
    ControlRequest, ControlProtocolError
  > {
    let name = commandName(command)
    if args == nil || args?.isEmpty == true {
      switch name {
      case "status": return .success(ControlRequest(id: id, kind: .status))
      case "subscribe": return .success(ControlRequest(id: id, kind: .subscribe))
      case "unsubscribe": return .success(ControlRequest(id: id, kind: .unsubscribe))
      case "quit": return .success(ControlRequest(id: id, kind: .quit))
      default: break
      }
    }
    if name == "queue" { return queueRequest(id: id, args: args ?? []) }
    if args?.isEmpty == false, ["status", "subscribe", "unsubscribe", "quit"].contains(name) {
      // Without this, `{"command": "status", "args": [1]}` fell through to the player's parser and was called
      // an unknown command.
      return .failure(ControlProtocolError(id: id, code: "bad-arguments", message: "\(name) takes no arguments"))
    }
    do throws(CommandParseError) {
      let parsed: PlayerCommand
      if let args {
        parsed = try CommandParser.parse(name: command, arguments: args)
      } else {
        parsed = try CommandParser.parse(command)
      }
      return .success(ControlRequest(id: id, kind: .player(parsed)))
    } catch {
      let code = error.message.hasPrefix("unknown command") ? "unknown-command" : "bad-arguments"
      return .failure(ControlProtocolError(id: id, code: code, message: error.message))
    }
  }
}

extension ControlRequest {
  /// How many paths one `queue` request may ask for.
  public static let maximumQueueCount = 10_000
  /// The number of paths a `queue` request without a count gets.
  public static let defaultQueueCount = 1_000

  /// `queue [OFFSET [COUNT]]`: whole numbers, the count at most ``QueuePage/maximumCount``.
  static func queueRequest(id: RequestID?, args: [String]) -> Result<ControlRequest, ControlProtocolError> {
    let usage = "queue takes an offset from 0 and a count from 1 to \(ControlRequest.maximumQueueCount) (queue 0 100)"
    guard args.count <= 2 else {
      return .failure(ControlProtocolError(id: id, code: "bad-arguments", message: usage))
    }
    let numbers = args.map { Int($0) }
    let offset = numbers.first ?? 0
    let count = numbers.count > 1 ? numbers[1] : ControlRequest.defaultQueueCount
    guard let offset, let count, offset >= 0, (1...ControlRequest.maximumQueueCount).contains(count) else {
      return .failure(ControlProtocolError(id: id, code: "bad-arguments", message: usage))
    }
    return .success(ControlRequest(id: id, kind: .queue(offset: offset, count: count)))
  }

  /// The command's name as `request` compares it: the blanks around it dropped, lowercased.
  ///
  /// Names are ASCII, and for ASCII text this works on bytes: going through Characters (grapheme breaking,
  /// Unicode properties, reversed views) took most of the time of reading a request (profiled on the socket
  /// path). Other text takes the Character path, which is the definition; a property test holds them equal.
  static func commandName(_ command: String) -> String {
    var bytes = command.utf8[...]
    guard bytes.allSatisfy({ $0 < 0x80 }) else {
      return String(command.drop { $0.isBlank }.reversed().drop { $0.isBlank }.reversed()).lowercased()
    }
    func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    while let first = bytes.first, isBlank(first) { bytes.removeFirst() }
    while let last = bytes.last, isBlank(last) { bytes.removeLast() }
    // Written in place: `String(decoding:as:)` of a lazy map looks for a faster path with dynamic casts.
    return String(unsafeUninitializedCapacity: bytes.count) { buffer in
      for (offset, byte) in bytes.enumerated() { buffer[offset] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
      return bytes.count
    }
  }
}

/// A request identifier as the client sent it.
public enum RequestID: Equatable, Hashable, Sendable {
  /// A JSON integer.
  case number(Int64)
  /// A JSON string.
  case string(String)
}

/// A request the server could not take: its code and message go back in an error reply.
public struct ControlProtocolError: Error, Equatable, Sendable {
  /// The request's id, when it could be read.
  public var id: RequestID?
  /// `bad-request`, `unknown-command`, `bad-arguments`, `line-too-long` or `limit-exceeded`.
  public var code: String
  /// What was wrong, in one line.
  public var message: String

  /// Creates a protocol error.
  public init(id: RequestID?, code: String, message: String) {
    self.id = id
    self.code = code
    self.message = message
  }
}

/// The request object as sent, before its command is parsed.
///
/// Read with ``JSONReader`` rather than `JSONDecoder` (a tenth of an acknowledgement, see JSONReader); numbers
/// mean what `JSONDecoder` makes of them, which the control-request fuzz target checks against the
/// Foundation-based reading it replaced.
private struct RawRequest {
  var id: RequestID?
  var command: String
  var args: [String]?

  static func read(_ line: some Collection<UInt8>) -> Result<RawRequest, ControlProtocolError> {
    guard let json = JSONReader.read(line) else {
      return .failure(ControlProtocolError(id: nil, code: "bad-request", message: "malformed JSON"))
    }
    guard case .object = json else {
      return .failure(
        ControlProtocolError(
          id: nil, code: "bad-request", message: "a request must be a JSON object with a \"command\" string"))
    }
    let id: RequestID?
    switch json["id"] {
    case nil, .null: id = nil
    case .number(let text) where Int64(text) != nil: id = .number(Int64(text)!)
    case .string(let text) where text.utf8.count <= 256: id = .string(text)
    default:
      return .failure(
        ControlProtocolError(
          id: nil, code: "bad-request", message: "\"id\" must be an integer or a string of at most 256 bytes"))
    }
    guard case .string(let command) = json["command"] else {
      return .failure(ControlProtocolError(id: id, code: "bad-request", message: "\"command\" must be a string"))
    }
    var args: [String]?
    switch json["args"] {
    case nil, .null: args = nil
    case .array(let elements):
      args = []
      for element in elements {
        guard let text = argumentText(element) else {
          return .failure(
            ControlProtocolError(
              id: id, code: "bad-request", message: "\"args\" must be an array of strings and numbers"))
        }
        args?.append(text)
      }
    default:
      return .failure(
        ControlProtocolError(id: id, code: "bad-request", message: "\"args\" must be an array of strings and numbers"))
    }
    return .success(RawRequest(id: id, command: command, args: args))
  }

  /// An argument as the command parser reads it: a string as it is, a number as the protocol's Foundation
  /// reading made it (Fuzz/ControlRequestReference.swift): a whole number that fits an `Int` in full, anything
  /// else through `decimalText`.
  private static func argumentText(_ value: JSONValue) -> String? {
    switch value {
    case .string(let text): return text
    case .number(let text):
      if let integer = Int(text) { return String(integer) }
      guard let number = Double(text), number.isFinite else { return nil }
      // JSONDecoder's Int: a plain integer exactly, anything else through a Double that must be whole and fit
      // (else the argument is the Double, through decimalText).
      guard number.rounded() == number, abs(number) < 9.223_372_036_854_775_808e18 else { return decimalText(number) }
      if abs(number) < 9_007_199_254_740_992 { return String(Int64(number)) }
      // From 2^53 up JSONDecoder reads the text again, digit by digit: only a text that is exactly a whole
      // number has one reading here; the rest is refused.
      guard case .whole(let integer) = JSONNumber.wholeValue(of: text) else { return nil }
      return String(integer)
    default: return nil
    }
  }
}

extension Character {
  /// White space that does not end a line, as Foundation's `CharacterSet.whitespaces` has it (splay links
  /// only FoundationEssentials, which has no character sets).
  var isBlank: Bool { isWhitespace && !isNewline }
}
