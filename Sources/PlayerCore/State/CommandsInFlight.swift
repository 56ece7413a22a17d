/// What a live view shows of the commands it sent and has not heard back from: one label per command until
/// that command settles, and a clock held still from the first one's sending until a state confirmed after the
/// last one settled (until then the server may not be playing where the estimate runs, and the clock must not
/// run past what it confirmed). A value with no clock of its own: the view passes the time in.
public struct CommandsInFlight: Sendable {
  /// One command in flight.
  public struct Command: Sendable, Equatable {
    /// Its number, from ``sent(_:state:at:)``.
    public var id: UInt64
    /// What the view shows for it ("pausing…").
    public var label: String
  }

  /// The commands in flight, oldest first.
  public private(set) var commands: [Command] = []
  /// Where the clock stands while held, and the revision of the state it was estimated from.
  public private(set) var held: (position: Double, revision: UInt64)?
  private var nextID: UInt64 = 0

  /// Nothing in flight.
  public init() {}

  /// The labels, oldest first, as one line ("pausing…, seeking +5 s…"); nil when nothing is in flight.
  public var label: String? { commands.isEmpty ? nil : commands.map(\.label).joined(separator: ", ") }

  /// A command was sent while `state` was the newest confirmed one: shown until it settles, and the clock
  /// holds at its estimate for `now` (monotonic nanoseconds), unless it holds already. Returns its number.
  public mutating func sent(_ label: String, state: PlayerState, at now: UInt64) -> UInt64 {
    nextID += 1
    commands.append(Command(id: nextID, label: label))
    if held == nil { hold(state, at: now) }
    return nextID
  }

  /// Command `id` settled, `state` being the newest confirmed one. With `keepHolding` (it timed out: the server
  /// confirmed nothing either way) the clock holds on until a newer state comes. Otherwise the clock runs again
  /// once nothing is in flight (a confirmation brought its state already; a refusal changed nothing), and
  /// while others are, it holds on from the newest state.
  public mutating func settled(_ id: UInt64, state: PlayerState, at now: UInt64, keepHolding: Bool = false) {
    commands.removeAll { $0.id == id }
    guard !keepHolding else { return }
    if commands.isEmpty {
      held = nil
    } else if let held, state.revision > held.revision {
      hold(state, at: now)
    }
  }

  /// A newer confirmed state arrived: the clock runs from it, unless commands are still in flight.
  public mutating func received(_ state: PlayerState, at now: UInt64) {
    guard let held, state.revision > held.revision else { return }
    if commands.isEmpty {
      self.held = nil
    } else {
      hold(state, at: now)
    }
  }

  private mutating func hold(_ state: PlayerState, at now: UInt64) {
    guard let track = state.track else {
      held = nil
      return
    }
    held = (state.position.estimated(at: now, limit: track.duration), state.revision)
  }
}
