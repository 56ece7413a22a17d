import PlayerCore

extension ControlRequest {
  /// The request as one line of JSON with its newline, keys sorted: what a client (`splay ctl`) sends, and what
  /// ``decode(_:)`` reads back as this request.
  ///
  /// ```json
  /// {"args": ["+5"], "command": "seek", "id": 1}
  /// ```
  public func lineBytes() -> [UInt8] {
    let (command, args): (String, [String]) =
      switch kind {
      case .player(let player): (player.name, player.arguments)
      case .status: ("status", [])
      case .subscribe: ("subscribe", [])
      case .unsubscribe: ("unsubscribe", [])
      case .quit: ("quit", [])
      case .queue(let offset, let count): ("queue", [String(offset), String(count)])
      }
    var json = JSONWriter()
    json.object { json in
      if !args.isEmpty { json.field("args", strings: args) }
      json.field("command", command)
      if let id { id.write(field: "id", to: &json) }
    }
    json.newline()
    return json.bytes
  }
}

extension RequestID {
  func write(field key: StaticString, to json: inout JSONWriter) {
    switch self {
    case .number(let number): json.field(key, number)
    case .string(let string): json.field(key, string)
    }
  }
}
