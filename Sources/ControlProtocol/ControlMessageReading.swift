import PlayerCore

extension ControlMessage {
  /// A line the server wrote (without its newline), read back: what ``lineBytes()`` writes, and the line that
  /// says a state could not be written (a failure with `output-failed`). Nil when the line is none of these.
  ///
  /// `splay ctl` reads replies and events with this, so that the protocol is written and read in one place.
  public static func read(_ line: some Collection<UInt8>) -> ControlMessage? {
    guard let json = JSONReader.read(line), case .object = json else { return nil }
    guard case .some(let id) = json.optional("id", RequestID.init(json:)) else { return nil }
    if let error = json["error"] {
      guard json["ok"]?.flag == false, let code = error["code"]?.text, let message = error["message"]?.text,
        case .some(let details) = error.optional("details", PlayerError.init(json:))
      else { return nil }
      return .failure(id: id, code: code, message: message, error: details)
    }
    if json["event"]?.text == "state" {
      return json["state"].flatMap(PlayerState.init(json:)).map(ControlMessage.event)
    }
    guard json["ok"]?.flag == true else { return nil }
    if let page = json["queue"] { return QueuePage(json: page).map { .queue(id: id, page: $0) } }
    guard let state = json["state"].flatMap(PlayerState.init(json:)),
      case .some(let skipped) = json.optional("skipped", { $0.elements?.compactMap(\.text) })
    else { return nil }
    return .success(id: id, state: state, skipped: skipped ?? [])
  }

  /// The request's id this line answers; nil for an event or a reply to a request without one.
  public var id: RequestID? {
    switch self {
    case .success(let id, _, _), .failure(let id, _, _, _), .queue(let id, _): id
    case .event: nil
    }
  }
}
