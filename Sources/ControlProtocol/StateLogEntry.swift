import PlayerCore

/// One line of a script's confirmed-state log (`splay run --record`): the script line that ran, and the state
/// confirmed once it had. Written as a JSON line with sorted keys, the state as the socket sends it:
/// `{"line":4,"state":{…},"text":"seek 12"}`.
public struct StateLogEntry: Equatable, Sendable {
  /// The script's 1-based line.
  public var line: Int
  /// The line as written, without its comment.
  public var text: String
  /// The state once the line had run.
  public var state: PlayerState

  /// An entry for line `line` (`text`) and `state`.
  public init(line: Int, text: String, state: PlayerState) {
    self.line = line
    self.text = text
    self.state = state
  }

  /// The entry as one line of compact JSON, without its newline; nil for a state with a position that is not a
  /// number, which no output reports.
  public var jsonText: String? {
    var json = JSONWriter()
    let written: Void? = try? json.object { json in
      json.field("line", line)
      try json.field("state", object: { json in try state.writeMembers(to: &json) })
      json.field("text", text)
    }
    return written == nil ? nil : json.text
  }

  /// The entry a log line holds (without its newline), or nil when it is not one.
  public static func read(_ line: some Collection<UInt8>) -> StateLogEntry? {
    guard let json = JSONReader.read(line), let number = json["line"]?.int, let text = json["text"]?.text,
      let state = json["state"].flatMap(PlayerState.init(json:))
    else { return nil }
    return StateLogEntry(line: number, text: text, state: state)
  }
}
