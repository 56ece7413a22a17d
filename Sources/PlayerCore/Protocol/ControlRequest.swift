import FoundationEssentials

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
    let raw: RawRequest
    do {
      raw = try JSONDecoder().decode(RawRequest.self, from: Data(line))
    } catch let error as RawRequest.Invalid {
      return .failure(ControlProtocolError(id: error.id, code: "bad-request", message: error.message))
    } catch DecodingError.typeMismatch, DecodingError.valueNotFound, DecodingError.keyNotFound {
      return .failure(
        ControlProtocolError(
          id: nil, code: "bad-request", message: "a request must be a JSON object with a \"command\" string"))
    } catch {
      return .failure(ControlProtocolError(id: nil, code: "bad-request", message: "malformed JSON"))
    }
    let id = raw.id
    let command = raw.command
    let args = raw.args
    let name = String(command.drop { $0.isBlank }.reversed().drop { $0.isBlank }.reversed()).lowercased()
    if args == nil || args?.isEmpty == true {
      switch name {
      case "status": return .success(ControlRequest(id: id, kind: .status))
      case "subscribe": return .success(ControlRequest(id: id, kind: .subscribe))
      case "unsubscribe": return .success(ControlRequest(id: id, kind: .unsubscribe))
      case "quit": return .success(ControlRequest(id: id, kind: .quit))
      default: break
      }
    } else if ["status", "subscribe", "unsubscribe", "quit"].contains(name) {
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

/// A request identifier as the client sent it.
public enum RequestID: Equatable, Hashable, Sendable, Codable {
  /// A JSON integer.
  case number(Int64)
  /// A JSON string.
  case string(String)

  /// Decodes an integer or a string.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if let n = try? c.decode(Int64.self) { self = .number(n) } else { self = .string(try c.decode(String.self)) }
  }

  /// Encodes the identifier as it came.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    switch self {
    case .number(let n): try c.encode(n)
    case .string(let s): try c.encode(s)
    }
  }
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

/// The request object as sent, before its command is parsed; its errors keep the id when it was readable.
private struct RawRequest: Decodable {
  struct Invalid: Error {
    var id: RequestID?
    var message: String
  }

  var id: RequestID?
  var command: String
  var args: [String]?

  private enum Keys: String, CodingKey { case id, command, args }

  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    if (try? c.decodeNil(forKey: .id)) ?? true {
      id = nil
    } else if let n = try? c.decode(Int64.self, forKey: .id) {
      id = .number(n)
    } else if let s = try? c.decode(String.self, forKey: .id), s.utf8.count <= 256 {
      id = .string(s)
    } else {
      throw Invalid(id: nil, message: "\"id\" must be an integer or a string of at most 256 bytes")
    }
    guard let command = try? c.decode(String.self, forKey: .command) else {
      throw Invalid(id: id, message: "\"command\" must be a string")
    }
    self.command = command
    if (try? c.decodeNil(forKey: .args)) ?? true {
      args = nil
    } else if let list = try? c.decode([CommandArgument].self, forKey: .args) {
      args = list.map(\.text)
    } else {
      throw Invalid(id: id, message: "\"args\" must be an array of strings and numbers")
    }
  }
}

extension Character {
  /// White space that does not end a line, as Foundation's `CharacterSet.whitespaces` has it (splay links
  /// only FoundationEssentials, which has no character sets).
  fileprivate var isBlank: Bool { isWhitespace && !isNewline }
}
