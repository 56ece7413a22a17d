import FoundationEssentials

/// The lines the server writes: replies to requests and state events (docs/protocol.md).
public enum ControlMessage: Sendable {
  /// `{"id": ID, "ok": true, "state": {...}}`
  case success(id: RequestID?, state: PlayerState)
  /// `{"id": ID, "ok": false, "error": {"code": ..., "message": ...}}`
  case failure(id: RequestID?, code: String, message: String, error: PlayerError?)
  /// `{"event": "state", "state": {...}}`
  case event(PlayerState)

  private struct ErrorBody: Encodable {
    var code: String
    var message: String
    var details: PlayerError?
  }

  private struct Body: Encodable {
    var id: RequestID??
    var ok: Bool?
    var event: String?
    var state: PlayerState?
    var error: ErrorBody?

    func encode(to encoder: any Encoder) throws {
      enum Keys: String, CodingKey { case id, ok, event, state, error }
      var c = encoder.container(keyedBy: Keys.self)
      if let id {
        if let id { try c.encode(id, forKey: .id) } else { try c.encodeNil(forKey: .id) }
      }
      try c.encodeIfPresent(ok, forKey: .ok)
      try c.encodeIfPresent(event, forKey: .event)
      try c.encodeIfPresent(state, forKey: .state)
      try c.encodeIfPresent(error, forKey: .error)
    }
  }

  /// The message as one line of JSON, with its newline.
  public func line() -> String {
    let body: Body
    switch self {
    case .success(let id, let state):
      body = Body(id: .some(id), ok: true, state: state)
    case .failure(let id, let code, let message, let error):
      body = Body(id: .some(id), ok: false, error: ErrorBody(code: code, message: message, details: error))
    case .event(let state):
      body = Body(event: "state", state: state)
    }
    guard let line = try? JSONLineEncoder.line(for: body) else { return "{\"ok\":false}\n" }
    return line + "\n"
  }
}
