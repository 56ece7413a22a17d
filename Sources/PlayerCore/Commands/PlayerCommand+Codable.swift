extension PlayerCommand: Codable {
  private enum CodingKeys: String, CodingKey { case command, args }

  /// Encodes the JSON form of the control protocol: `{"command": "seek", "args": ["+5"]}`.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(name, forKey: .command)
    try c.encode(arguments, forKey: .args)
  }

  /// Decodes `{"command": NAME, "args": [...]}`, where each argument is a string or a number as the text form
  /// would take it; `{"command": "seek +5"}` (the whole text form in one string) is accepted too.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let name = try c.decode(String.self, forKey: .command)
    let args = try c.decodeIfPresent([CommandArgument].self, forKey: .args)?.map(\.text)
    do {
      if let args {
        self = try CommandParser.parse(name: name, arguments: args)
      } else {
        self = try CommandParser.parse(name)
      }
    } catch {
      throw DecodingError.dataCorruptedError(forKey: .command, in: c, debugDescription: error.description)
    }
  }
}

/// One JSON argument: a string, an integer or a decimal, turned into the word the text form would use.
struct CommandArgument: Decodable {
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
