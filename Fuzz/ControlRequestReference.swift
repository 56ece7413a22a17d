// The control protocol's request reading as it was before JSONReader: Foundation's JSONDecoder. Kept as the
// reference that the control-request target holds the fast reader to (ControlRequestFuzz.swift).

import Foundation

// Testable: its arguments go through PlayerCore's internal `decimalText`, as the protocol's did then.
@testable import PlayerCore

enum ControlRequestReference {
  static func decode(_ line: some Collection<UInt8>) -> Result<ControlRequest, ControlProtocolError> {
    let raw: ReferenceRawRequest
    do {
      raw = try JSONDecoder().decode(ReferenceRawRequest.self, from: Data(line))
    } catch let error as ReferenceRawRequest.Invalid {
      return .failure(ControlProtocolError(id: error.id, code: "bad-request", message: error.message))
    } catch DecodingError.typeMismatch, DecodingError.valueNotFound, DecodingError.keyNotFound {
      return .failure(
        ControlProtocolError(
          id: nil, code: "bad-request", message: "a request must be a JSON object with a \"command\" string"))
    } catch {
      return .failure(ControlProtocolError(id: nil, code: "bad-request", message: "malformed JSON"))
    }
    return ControlRequest.request(id: raw.id, command: raw.command, args: raw.args)
  }
}

private struct ReferenceRawRequest: Decodable {
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

/// One JSON argument as the protocol read it with Foundation: a string, an integer or a decimal, turned into
/// the word the text form would use.
private struct CommandArgument: Decodable {
  var text: String

  init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if let s = try? c.decode(String.self) {
      text = s
    } else if let i = try? c.decode(Int.self) {
      text = String(i)
    } else if let d = try? c.decode(Double.self) {
      guard d.isFinite else { throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a finite number") }
      text = decimalText(d)
    } else {
      throw DecodingError.dataCorruptedError(in: c, debugDescription: "an argument must be a string or a number")
    }
  }
}
