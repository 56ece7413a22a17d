import PlayerCore

/// The decisions about a stream prepared ahead of the first `open` (``PulseOutput/prepare(_:playingWhen:)``):
/// when its `ready` future settles, and whether it is uncorked first.
///
/// Pure: the output feeds it what happened (the stream was created, its first audio is in, the caller's
/// `playingWhen` future settled) and performs the ``Action`` it returns.
struct PreparedStart: Equatable {
  /// What the stream's start waits for.
  enum Clearance: Equatable {
    /// It stays corked until an `open` takes it.
    case notAsked
    /// It plays once its `playingWhen` future has succeeded, which it has not yet.
    case waiting
    /// The future succeeded: it plays once its first audio is in.
    case cleared
    /// The future failed: it stays corked.
    case refused
  }

  /// How far the stream has got.
  enum Phase: Equatable {
    /// The server is making it.
    case creating
    /// The server has made it; `prefilled` once its first audio is in (followed only for a stream to play).
    case created(prefilled: Bool)
    /// Its `ready` future is settled, or the uncork that settles it was issued.
    case finished
  }

  /// What the output does next.
  enum Action: Equatable {
    /// Nothing yet.
    case wait
    /// Resolve `ready`: the stream is made and stays corked.
    case resolve
    /// Cancel `ready`: the stream went before it could play.
    case cancel
    /// Uncork the stream; `ready` settles with the server's answer.
    case uncork
  }

  private(set) var clearance: Clearance
  private(set) var phase = Phase.creating

  /// A stream that is to play once `playingWhen` clears it (`playing`), or to stay corked.
  init(playing: Bool) {
    clearance = playing ? .waiting : .notAsked
  }

  /// Whether the output must tell it when the stream's first audio is in.
  var followsPrefill: Bool { clearance != .notAsked }

  /// The caller's `playingWhen` future settled; `succeeded` says whether it cleared the start.
  mutating func clearanceSettled(succeeded: Bool) -> Action {
    clearance = succeeded ? .cleared : .refused
    return next()
  }

  /// The server has created the stream.
  mutating func created() -> Action {
    guard phase == .creating else { return .wait }
    phase = .created(prefilled: false)
    return next()
  }

  /// The stream's first audio is in (`true`), or the stream went before it was (`false`).
  mutating func prefillEnded(filled: Bool) -> Action {
    guard case .created = phase else { return .wait }
    guard filled else {
      phase = .finished
      return .cancel
    }
    phase = .created(prefilled: true)
    return next()
  }

  /// Making the stream failed, or its `ready` was settled otherwise: nothing more is to be done.
  mutating func finish() {
    phase = .finished
  }

  private mutating func next() -> Action {
    guard case .created(let prefilled) = phase else { return .wait }
    switch clearance {
    case .notAsked, .refused:
      phase = .finished
      return .resolve
    case .waiting:
      return .wait
    case .cleared:
      guard prefilled else { return .wait }
      phase = .finished
      return .uncork
    }
  }
}
