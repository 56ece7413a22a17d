import PlayerCore

/// The live view's `/`: a query typed at the bottom of the view, the tracks of the queue it matches
/// (``QueueSearch``), and which of them Enter plays. The queue itself stays as it is.
struct SearchPrompt {
  /// What a key did to the prompt.
  enum Outcome: Equatable {
    /// Still typing or choosing.
    case editing
    /// Closed without a choice.
    case closed
    /// Closed with a choice: play the track at this index of the queue.
    case play(Int)
  }

  private(set) var query = ""
  /// The matching indexes, what comes next in the queue first.
  private(set) var matches: [Int] = []
  /// Which of the matches Enter plays.
  private(set) var selected = 0
  /// The queue revision the matches were found in.
  private var revision: UInt64?

  /// Takes `key` with the player in `state`, finding matches with `search` (which keeps the queue's folded
  /// paths between prompts): characters extend the query, Backspace shortens it (or closes an empty prompt), Tab
  /// and ↓ choose the next match and ↑ the one before, Enter plays the chosen one, Esc closes.
  mutating func take(_ key: Key, in state: PlayerState, using search: inout QueueSearch) -> Outcome {
    switch key {
    case .character(let character) where !character.isNewline:
      query.append(character)
    case .backspace:
      guard !query.isEmpty else { return .closed }
      query.removeLast()
    case .tab, .down:
      if !matches.isEmpty { selected = (selected + 1) % matches.count }
      return .editing
    case .up:
      if !matches.isEmpty { selected = (selected + matches.count - 1) % matches.count }
      return .editing
    case .enter:
      // A queue replaced since the last key: its indexes are found again, not taken from the old one.
      if revision != state.queueRevision { find(in: state, using: &search) }
      return matches.isEmpty ? .closed : .play(matches[selected])
    case .escape:
      return .closed
    default:
      return .editing
    }
    find(in: state, using: &search)
    return .editing
  }

  /// Finds the matches of the query again (`search` learned tags): what Enter plays is the first of them.
  mutating func findAgain(in state: PlayerState, using search: inout QueueSearch) {
    guard !query.isEmpty else { return }
    find(in: state, using: &search)
  }

  private mutating func find(in state: PlayerState, using search: inout QueueSearch) {
    matches = search.matches(of: query, in: state)
    selected = 0
    revision = state.queueRevision
  }

  /// The prompt's line: the query, how many tracks match, and the one Enter plays (its number and path).
  func line(in state: PlayerState) -> String {
    let prompt = "/" + query + "█"
    guard !query.isEmpty else {
      return prompt + "   find in the queue: words of a path or its tags; Enter plays, Esc closes"
    }
    guard !matches.isEmpty, matches[selected] < state.queue.count else { return prompt + "   no match" }
    let index = matches[selected]
    return prompt + "   \(selected + 1) of \(matches.count): #\(index + 1) " + state.queue[index]
  }
}
