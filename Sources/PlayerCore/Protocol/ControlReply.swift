/// The lines the server writes: replies to requests and state events (docs/protocol.md).
public enum ControlMessage: Sendable {
  /// `{"id": ID, "ok": true, "state": {...}}`
  case success(id: RequestID?, state: PlayerState)
  /// `{"id": ID, "ok": false, "error": {"code": ..., "message": ...}}`
  case failure(id: RequestID?, code: String, message: String, error: PlayerError?)
  /// `{"event": "state", "state": {...}}`
  case event(PlayerState)

  /// The message as one line of JSON, with its newline.
  public func line() -> String {
    String(decoding: lineBytes(), as: UTF8.self)
  }

  /// The UTF-8 of ``line()``, as the socket sends it (no string made only to be copied out again).
  public func lineBytes() -> [UInt8] {
    var json = JSONWriter()
    do {
      try write(to: &json)
    } catch {
      // A position that is not a number (which no output reports): the reply still says it failed.
      return Array("{\"ok\":false}\n".utf8)
    }
    json.newline()
    return json.bytes
  }

  /// Keys in sorted order: `error`, `event`, `id`, `ok`, `state`.
  private func write(to json: inout JSONWriter) throws {
    try json.object { json in
      switch self {
      case .success(let id, let state):
        Self.write(id: id, to: &json)
        json.field("ok", true)
        json.key("state")
        try state.write(to: &json)
      case .failure(let id, let code, let message, let error):
        try json.field("error") { json in
          json.field("code", code)
          if let error { try json.field("details") { json in try error.write(members: &json) } }
          json.field("message", message)
        }
        Self.write(id: id, to: &json)
        json.field("ok", false)
      case .event(let state):
        json.field("event", "state")
        json.key("state")
        try state.write(to: &json)
      }
    }
  }

  private static func write(id: RequestID?, to json: inout JSONWriter) {
    if let id { id.write(field: "id", to: &json) } else { json.nullField("id") }
  }
}
