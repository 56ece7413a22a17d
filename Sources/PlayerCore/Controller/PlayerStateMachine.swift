/// The player's logic as a value: it takes commands, the output's answers and output events, and returns what
/// to do and what to publish. No I/O, no clocks, no threads — ``PlayerController`` carries out what it decides,
/// and tests drive it directly.
///
/// One entry and one action type per family of inputs, as in swift-nio's `NIOAsyncWriter.StateMachine`:
/// - a caller's request: ``decide(_:)``, ``refresh()``, ``recover()`` and ``restore(queue:index:seconds:)``
///   return a ``CommandAction``;
/// - the output's answer to a step: ``answer(_:_:)`` returns a ``StepAction``;
/// - an event of the output: ``handle(_:)`` returns an ``EventAction``.
///
/// The rule it enforces is the product's: ``state`` changes only on an answer of the output or an output event
/// (and on the commands that need no output, through ``apply(_:)``), and every change increments the revision.
public struct PlayerStateMachine: Sendable {
  /// The most tracks a queue holds; `load`/`enqueue` beyond it fail with `limit-exceeded`.
  public static let maximumQueueLength = 1_000_000

  /// The confirmed state.
  public private(set) var state: PlayerState

  /// The output stream the current track plays on, from its `open` confirmation; events about other
  /// streams are stale.
  var streamNumber: UInt64?

  /// Where the last track finished, kept while the controller moves on to the next one.
  var finished: OutputConfirmation?
  /// While the player moves on by itself (a track ended): how many tracks it skipped on the way because they
  /// could not be opened. Nil while the step in flight is a caller's.
  var skippedMovingOn: Int?
  /// Whether the volume was set by a `volume` command: new streams are then opened at it, overriding a volume
  /// the server's session manager restores; until then they take the server's.
  public internal(set) var volumeIsExplicit = false

  /// The volume a new stream is opened at: the one a `volume` command set, or nil to take the server's.
  public var volumeForNewStream: Int? { volumeIsExplicit ? state.volume : nil }

  /// The order the queue plays in, for the decoder factory to choose a ReplayGain by.
  public var playOrder: PlayOrder { state.shuffle ? .shuffled : .inOrder }

  /// How far into a track "back" restarts it instead of going to the previous one, in seconds.
  public static let restartThreshold = 3.0
  /// The last track offered to the output for gapless playback (``takeOffer()``).
  var offered: UpcomingTrack?

  /// Starts from `state` (by default, nothing loaded at full volume). The shuffle order is drawn from a
  /// generator seeded with `shuffleSeed`: a test passes one to get the same order on every run.
  public init(state: PlayerState = .initial, shuffleSeed: UInt64 = .random(in: .min ... .max)) {
    self.state = state
    random = SplitMix64(seed: shuffleSeed)
  }

  /// With `shuffle` on: the order the queue plays in, the current track first. Drawn again when the queue is
  /// replaced or the shuffle is turned on; tracks appended join it among those still to play.
  private var shuffleOrder = ShuffleOrder()
  /// Where the shuffle orders come from; part of the value, so that a copy of the machine draws the same.
  private var random: SplitMix64

  /// Where a new queue of `count` tracks starts: its first track, or with shuffle on a random one, which the
  /// shuffle order then starts from. The queue itself keeps its order, so that turning shuffle off plays on in it.
  func startIndex(count: Int) -> Int {
    guard state.shuffle, count > 1 else { return 0 }
    // A copy: deciding changes nothing; the order drawn when the queue is published advances the generator.
    var draw = random
    return Int(draw.next() % UInt64(count))
  }

  /// The track that plays after `index` when it ends: itself when repeating one, otherwise ``indexInPlayOrder(from:by:)``.
  public func following(_ index: Int) -> Int? {
    state.repeatMode == .one && index < state.queue.count ? index : indexInPlayOrder(from: index, by: 1)
  }

  /// The track `delta` places from `index` in play order (the shuffle's, or the queue's), wrapping around
  /// when repeating all; nil past either end otherwise. `next` and `previous` go here whatever the repeat
  /// mode: repeating one track does not stop a person from moving on.
  public func indexInPlayOrder(from index: Int, by delta: Int) -> Int? {
    let count = state.queue.count
    guard count > 0 else { return nil }
    // An index outside the queue comes from a step whose new queue failed to open: it moves in queue order.
    let shuffled = state.shuffle && shuffleOrder.count == count && index >= 0 && index < count
    let position = shuffled ? shuffleOrder.place(of: index) : index
    var target = position + delta
    if !(0..<count).contains(target) {
      guard state.repeatMode == .all else { return nil }
      target = ((target % count) + count) % count
    }
    return shuffled ? shuffleOrder[target] : target
  }

  func position(_ confirmation: OutputConfirmation) -> ConfirmedPosition {
    ConfirmedPosition(
      seconds: confirmation.position, confirmedAt: confirmation.time, rate: confirmation.running ? 1 : 0,
      movesAt: confirmation.running ? confirmation.movesAt : nil)
  }

  /// Consumes `next`, so that setting its revision writes the storage the caller's changes already own
  /// instead of copying it once more.
  mutating func publish(_ next: consuming PlayerState) -> PlayerState? {
    let queueChanged = next.queue != state.queue
    if queueChanged { next.queueRevision = state.queueRevision + 1 }
    guard !next.sameContent(as: state) else { return nil }
    if next.shuffle {
      let ordered = state.shuffle && shuffleOrder.count == state.queue.count
      if ordered, queueChanged, next.index == state.index, next.queue.hasPrefix(state.queue) {
        shuffleOrder.extend(to: next.queue.count, after: next.index, using: &random)
      } else if !ordered || queueChanged {
        shuffleOrder = .drawn(count: next.queue.count, first: next.index, using: &random)
      }
    }
    next.revision = state.revision + 1
    state = next
    return state
  }
}
