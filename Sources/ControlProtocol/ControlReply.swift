import PlayerCore

/// The lines the server writes: replies to requests and state events (docs/protocol.md).
public enum ControlMessage: Equatable, Sendable {
  /// `{"id": ID, "ok": true, "state": {...}}`, with `"skipped": [...]` when a `load` or `enqueue` left
  /// entries of a folder or playlist out (one line each).
  case success(id: RequestID?, state: PlayerState, skipped: [String] = [])
  /// `{"id": ID, "ok": false, "error": {"code": ..., "message": ...}}`
  case failure(id: RequestID?, code: String, message: String, error: PlayerError?)
  /// `{"event": "state", "state": {...}}`
  case event(PlayerState)
  /// `{"id": ID, "ok": true, "queue": {"length": ..., "offset": ..., "paths": [...], "revision": ...}}`
  case queue(id: RequestID?, page: QueuePage)

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
      // A number that is not finite (which no output reports): the line still says, under the request's id
      // (or as an event), that what it stands for could not be sent.
      json = JSONWriter()
      writeUnwritable(to: &json)
    }
    json.newline()
    return json.bytes
  }

  /// `{"error": {...}, "id": ID, "ok": false}` for a reply, `{"error": {...}, "event": "state", "ok": false}`
  /// for an event: no number, so it cannot fail.
  private func writeUnwritable(to json: inout JSONWriter) {
    json.object { json in
      json.field("error") { json in
        json.field("code", "output-failed")
        json.field("message", "the state could not be written as JSON: a number in it is not finite")
      }
      switch self {
      case .success(let id, _, _), .failure(let id, _, _, _), .queue(let id, _): Self.write(id: id, to: &json)
      case .event: json.field("event", "state")
      }
      json.field("ok", false)
    }
  }

  /// Keys in sorted order: `error`, `event`, `id`, `ok`, `skipped`, `state`.
  private func write(to json: inout JSONWriter) throws {
    try json.object { json in
      switch self {
      case .success(let id, let state, let skipped):
        Self.write(id: id, to: &json)
        json.field("ok", true)
        if !skipped.isEmpty { json.field("skipped", strings: skipped) }
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
      case .queue(let id, let page):
        Self.write(id: id, to: &json)
        json.field("ok", true)
        json.field("queue", object: { json in page.write(members: &json) })
      }
    }
  }

  private static func write(id: RequestID?, to json: inout JSONWriter) {
    if let id { id.write(field: "id", to: &json) } else { json.nullField("id") }
  }
}
