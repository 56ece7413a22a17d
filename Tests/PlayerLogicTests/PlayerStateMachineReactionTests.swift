import Testing

@testable import PlayerCore

/// How the pure machine takes what the output says: every confirmation (`confirm`), every event (`handle`) and
/// every failure (`fail`) in every status, as tables. The player stands on track 2 of 3 ("b", 10 s long) at 4 s,
/// confirmed at time 1,000 on stream 7, with the volume at 50 % (nothing loaded when idle).
@Suite struct PlayerStateMachineReactionTests {
  private static let queue: TrackQueue = ["a.flac", "b.flac", "c.flac"]
  private static let track = TrackInfo(path: "b.flac", format: "FLAC", sampleRate: 44_100, channels: 2, frames: 441_000)
  private static let next = TrackInfo(path: "c.flac", format: "FLAC", sampleRate: 44_100, channels: 2, frames: 88_200)
  private static let failure = PlayerError.outputLost(detail: "gone")
  private static let statuses: [PlaybackStatus] = [.idle, .stopped, .playing, .paused, .ended, .failed(failure)]

  private static func machine(_ status: PlaybackStatus) -> PlayerStateMachine {
    let loaded = status != .idle
    var machine = PlayerStateMachine(
      state: PlayerState(
        status: status, track: loaded ? track : nil,
        position: ConfirmedPosition(seconds: loaded ? 4 : 0, confirmedAt: 1_000, rate: status == .playing ? 1 : 0),
        volume: 50, queue: loaded ? queue : [], index: loaded ? 1 : nil), shuffleSeed: 1)
    machine.streamNumber = loaded ? 7 : nil
    return machine
  }

  private static func confirmation(_ seconds: Double, running: Bool, stream: UInt64 = 7) -> OutputConfirmation {
    OutputConfirmation(position: seconds, time: 2_000, running: running, streamNumber: stream)
  }

  /// What a confirmation leaves, in the fields a step may change.
  private struct Outcome: Equatable, CustomStringConvertible {
    var status: PlaybackStatus
    var seconds: Double
    var rate: Double
    var index: Int?
    var volume: Int

    init(_ state: PlayerState) {
      (status, seconds, rate, index, volume) =
        (state.status, state.position.seconds, state.position.rate, state.index, state.volume)
    }

    init(_ status: PlaybackStatus, _ seconds: Double, rate: Double, index: Int?, volume: Int = 50) {
      (self.status, self.seconds, self.rate, self.index, self.volume) = (status, seconds, rate, index, volume)
    }

    var description: String {
      "\(status.name) at \(seconds) (rate \(rate)), index \(index.map(String.init) ?? "-"), \(volume) %"
    }
  }

  /// Each step with the output's answer, and what the state is afterwards, from `status`. A confirmation is
  /// taken whatever the status: the output did it, so the state says so.
  private static func confirmations(from status: PlaybackStatus) -> [(String, OutputStep, StepResult, Outcome)] {
    let index = status == .idle ? nil : 1
    let corked = confirmation(0, running: false, stream: 8)
    let running = confirmation(0.01, running: true, stream: 8)
    func open(_ then: OutputStep.StatusAfterOpen) -> OutputStep {
      .open(queue: queue, index: 2, seconds: 0, then: then)
    }
    return [
      ("open, stay stopped", open(.stopped), .confirmed(corked, track: next), Outcome(.stopped, 0, rate: 0, index: 2)),
      ("open, stay paused", open(.paused), .confirmed(corked, track: next), Outcome(.paused, 0, rate: 0, index: 2)),
      ("open and play", open(.playing), .confirmed(running, track: next), Outcome(.playing, 0.01, rate: 1, index: 2)),
      (
        "open handed over playing", open(.stopped), .confirmed(running, track: next),
        Outcome(.playing, 0.01, rate: 1, index: 2)
      ),
      (
        "start", .start, .confirmed(confirmation(4, running: true), track: nil),
        Outcome(.playing, 4, rate: 1, index: index)
      ),
      (
        "pause", .pause, .confirmed(confirmation(4.2, running: false), track: nil),
        Outcome(.paused, 4.2, rate: 0, index: index)
      ),
      (
        "stop", .stop, .confirmed(confirmation(0, running: false), track: nil),
        Outcome(.stopped, 0, rate: 0, index: index)
      ),
      (
        "volume", .volume(60), .volume(60),
        Outcome(status, status == .idle ? 0 : 4, rate: status == .playing ? 1 : 0, index: index, volume: 60)
      ),
    ]
  }

  @Test(arguments: statuses)
  func everyConfirmationInThisStatus(status: PlaybackStatus) throws {
    for (label, step, result, want) in Self.confirmations(from: status) {
      var machine = Self.machine(status)
      let published = machine.answer(step, .success(result)).published
      #expect(published.map(Outcome.init) == want, "\(status.name), \(label)")
      #expect(published?.revision == 1, "\(status.name), \(label): one change, one revision")
      #expect(machine.state == published, "\(status.name), \(label)")
    }
  }

  @Test(arguments: statuses)
  func aSeekConfirmationMovesThePositionAndKeepsTheStatus(status: PlaybackStatus) {
    for step in [OutputStep.seek(7), .seekBy(3, duration: 10)] {
      var machine = Self.machine(status)
      let published = machine.answer(
        step, .success(.confirmed(Self.confirmation(7, running: status == .playing), track: nil))
      ).published
      #expect(published?.status == status && published?.position.seconds == 7, "\(status.name), \(step)")
    }
  }

  /// A step the output confirmed after it moved on to the next gapless track (a `play` at the end of a paused
  /// track), before its trackAdvanced event: the state is on that track, and the event, coming later, is stale.
  @Test(arguments: [OutputStep.start, .pause, .seek(0.2)])
  func aConfirmationAfterAGaplessAdvanceIsOnTheNewTrack(step: OutputStep) {
    var machine = Self.machine(.paused)
    var advanced = Self.confirmation(0.2, running: step != .pause, stream: 8)
    advanced.advance = GaplessAdvance(from: 7, track: Self.next)
    let published = machine.answer(step, .success(.confirmed(advanced, track: nil))).published
    #expect(published?.index == 2, "\(step)")
    #expect(published?.track == Self.next)
    #expect(published?.position.seconds == 0.2)
    #expect(machine.handle(.trackAdvanced(from: 7, advanced, track: Self.next)) == .ignore)
    // An advance from another stream than the state's says nothing about this one.
    var other = Self.machine(.paused)
    advanced.advance = GaplessAdvance(from: 6, track: Self.next)
    #expect(other.answer(step, .success(.confirmed(advanced, track: nil))).published?.index == 1)
  }

  @Test func anAnswerThatDoesNotBelongToTheStepChangesNothing() {
    var machine = Self.machine(.playing)
    #expect(
      machine.answer(.volume(60), .success(.confirmed(Self.confirmation(1, running: true), track: nil))).published
        == nil)
    #expect(machine.answer(.pause, .success(.volume(60))).published == nil)
    #expect(machine.state == Self.machine(.playing).state)
  }

  @Test func onlyAnExplicitVolumeIsImposedOnTheNextStream() {
    var machine = Self.machine(.playing)
    _ = machine.handle(.volumeChanged(30))
    #expect(!machine.volumeIsExplicit, "a volume the server chose is not the user's")
    #expect(machine.volumeForNewStream == nil, "the next stream takes the server's volume")
    _ = machine.answer(.volume(60), .success(.volume(60))).published
    #expect(machine.volumeIsExplicit)
    #expect(machine.volumeForNewStream == 60)
  }

  /// What each event needs, by a short label, from the status of the row.
  private enum Expected: Equatable {
    case ignore
    case perform(OutputStep)
    /// Published with this status, position and index.
    case publish(PlaybackStatus, seconds: Double, index: Int?)
  }

  private static let events: [(String, OutputEvent)] = [
    ("finished", .trackFinished(confirmation(10, running: false))),
    ("finished, stale", .trackFinished(confirmation(10, running: false, stream: 6))),
    ("failed", .trackFailed(.fileNotFound(path: "b.flac"), confirmation(6, running: false))),
    ("advanced", .trackAdvanced(from: 7, confirmation(0.1, running: true, stream: 8), track: next)),
    ("advanced, stale", .trackAdvanced(from: 6, confirmation(0.1, running: true, stream: 8), track: next)),
    ("late, corked", .confirmedLate(confirmation(5, running: false))),
    ("late, running", .confirmedLate(confirmation(5, running: true))),
    ("late, stale", .confirmedLate(confirmation(5, running: true, stream: 6))),
    ("lost", .lost(failure)),
    ("underflow", .underflow),
  ]

  private static func expected(_ status: PlaybackStatus) -> [String: Expected] {
    let playNext = Expected.perform(.open(queue: queue, index: 2, seconds: 0, then: .playing))
    let stale: [String: Expected] = ["finished, stale": .ignore, "advanced, stale": .ignore, "late, stale": .ignore]
    let rest: [String: Expected]
    switch status {
    case .idle:
      rest = [
        "finished": .ignore, "failed": .ignore, "advanced": .ignore, "late, corked": .ignore, "late, running": .ignore,
        "lost": .ignore, "underflow": .ignore,
      ]
    case .playing:
      rest = [
        "finished": playNext, "failed": playNext, "advanced": .publish(.playing, seconds: 0.1, index: 2),
        "late, corked": .publish(.paused, seconds: 5, index: 1),
        "late, running": .publish(.playing, seconds: 5, index: 1),
        "lost": .publish(.failed(failure), seconds: 4, index: 1), "underflow": .ignore,
      ]
    case .paused, .stopped:
      rest = [
        // A corked stream does not finish; an end that raced with the cork is stale.
        "finished": .ignore, "failed": .ignore, "advanced": .publish(status, seconds: 0.1, index: 2),
        "late, corked": .publish(status, seconds: 5, index: 1),
        "late, running": .publish(.playing, seconds: 5, index: 1),
        "lost": .publish(.failed(failure), seconds: 4, index: 1), "underflow": .ignore,
      ]
    case .ended:
      rest = [
        "finished": .ignore, "failed": .ignore, "advanced": .ignore, "late, corked": .ignore, "late, running": .ignore,
        "lost": .publish(.failed(failure), seconds: 4, index: 1), "underflow": .ignore,
      ]
    case .failed:
      rest = [
        "finished": .ignore, "failed": .ignore, "advanced": .ignore, "late, corked": .ignore, "late, running": .ignore,
        // Already failed for that reason: nothing new to say.
        "lost": .ignore, "underflow": .ignore,
      ]
    }
    return stale.merging(rest) { $1 }
  }

  @Test(arguments: statuses)
  func everyEventInThisStatus(status: PlaybackStatus) {
    let table = Self.expected(status)
    for (label, event) in Self.events {
      var machine = Self.machine(status)
      let before = machine.state
      let reaction = machine.handle(event)
      let got: Expected
      switch reaction {
      case .ignore: got = .ignore
      case .perform(let step): got = .perform(step)
      case .publish(let state):
        got = .publish(state.status, seconds: state.position.seconds, index: state.index)
        #expect(state.revision == before.revision + 1 && machine.state == state, "\(status.name), \(label)")
      }
      #expect(got == table[label], "\(status.name), \(label)")
      if case .publish = reaction { continue }
      #expect(machine.state == before, "\(status.name), \(label): nothing published, nothing changed")
    }
  }

  @Test(arguments: statuses)
  func deviceAndVolumeEventsArePublishedInEveryStatus(status: PlaybackStatus) {
    var machine = Self.machine(status)
    guard case .publish(let moved) = machine.handle(.deviceChanged("headphones")) else {
      Issue.record("\(status.name): a device change was not published")
      return
    }
    #expect(moved.device == "headphones" && moved.status == status)
    guard case .publish(let louder) = machine.handle(.volumeChanged(70)) else {
      Issue.record("\(status.name): a volume change was not published")
      return
    }
    #expect(louder.volume == 70 && louder.status == status)
    #expect(machine.handle(.volumeChanged(70)) == .ignore, "\(status.name): the same volume again is no change")
  }

  @Test func theLastTrackFinishingEndsTheQueueWhereItsAudioEnded() throws {
    var state = Self.machine(.playing).state
    state.index = 2
    state.track = Self.next
    var machine = PlayerStateMachine(state: state, shuffleSeed: 1)
    machine.streamNumber = 7
    guard case .publish(let ended) = machine.handle(.trackFinished(Self.confirmation(2, running: false))) else {
      Issue.record("the end of the queue was not published")
      return
    }
    #expect(ended.status == .ended && ended.position.seconds == 2 && ended.position.rate == 0)
  }

  @Test(arguments: statuses)
  func aMissedDeadlineIsReconciledBeforeItFailsAndOtherFailuresFailAtOnce(status: PlaybackStatus) {
    let timeout = PlayerError.timeout(command: "pause", seconds: 2)
    let missing = PlayerError.fileNotFound(path: "c.flac")
    let steps: [OutputStep] = [
      .start, .pause, .seek(3), .stop, .volume(60), .open(queue: Self.queue, index: 2, seconds: 0, then: .playing),
    ]
    for step in steps {
      var machine = Self.machine(status)
      #expect(machine.answer(step, .failure(timeout)) == .reconcileThenFail(timeout), "\(status.name), \(step)")
      #expect(machine.answer(step, .failure(Self.failure)) == .fail(Self.failure), "\(status.name), \(step)")
      #expect(machine.answer(step, .failure(missing)) == .fail(missing), "a caller's command reports a missing file")
      #expect(machine.state == Self.machine(status).state, "\(status.name), \(step): deciding changes nothing")
    }
    var machine = Self.machine(status)
    #expect(machine.answer(.status, .failure(timeout)) == .fail(timeout), "a timed-out status is not read twice")
  }

  /// Moving on by itself from track `from` (the previous one finished), the player meets tracks that cannot be
  /// opened: the machine skips each to the next by the queue modes, until none follows or every track of the
  /// queue failed once. Rows: repeat mode, the track that finished, and the tracks tried before the queue ends.
  @Test(arguments: [(RepeatMode.off, 0, [1, 2]), (.off, 1, [2]), (.all, 1, [2, 0, 1]), (.one, 0, [0, 1, 2])])
  func movingOnByItselfUnopenableTracksAreSkipped(repeatMode: RepeatMode, from: Int, tried: [Int]) throws {
    var state = Self.machine(.playing).state
    (state.repeatMode, state.index) = (repeatMode, from)
    var machine = PlayerStateMachine(state: state, shuffleSeed: 1)
    machine.streamNumber = 7
    func open(_ index: Int) -> OutputStep { .open(queue: Self.queue, index: index, seconds: 0, then: .playing) }
    func missing(_ index: Int) -> PlayerError { .fileNotFound(path: Self.queue[index]) }
    #expect(machine.handle(.trackFinished(Self.confirmation(10, running: false))) == .perform(open(tried[0])))
    for (place, index) in tried.enumerated().dropLast() {
      #expect(
        machine.answer(open(index), .failure(missing(index))) == .skip(missing(index), next: open(tried[place + 1])))
    }
    let last = try #require(tried.last)
    guard case .skipToEnd(let error, let ended?) = machine.answer(open(last), .failure(missing(last))) else {
      Issue.record("\(repeatMode), from \(from): the queue did not end after \(tried)")
      return
    }
    #expect(error == missing(last))
    #expect(ended.status == .ended && ended.position.seconds == 10 && ended.index == from)
  }

  @Test func onlyAFileErrorMovingOnIsSkippedAndOnlyUntilAStepSucceeds() {
    let open = OutputStep.open(queue: Self.queue, index: 2, seconds: 0, then: .playing)
    let missing = PlayerError.fileNotFound(path: "c.flac")
    let timeout = PlayerError.timeout(command: "next", seconds: 2)
    let finished = OutputEvent.trackFinished(Self.confirmation(10, running: false))
    var machine = Self.machine(.playing)
    #expect(machine.handle(finished) == .perform(open))
    #expect(machine.answer(open, .failure(Self.failure)) == .fail(Self.failure), "only file errors are skipped")
    machine = Self.machine(.playing)
    _ = machine.handle(finished)
    #expect(machine.answer(open, .failure(timeout)) == .reconcileThenFail(timeout))
    machine = Self.machine(.playing)
    _ = machine.handle(finished)
    guard
      case .complete(let opened?) = machine.answer(
        open, .success(.confirmed(Self.confirmation(0, running: true, stream: 8), track: Self.next)))
    else {
      Issue.record("the next track's confirmation was not published")
      return
    }
    #expect(opened.index == 2)
    #expect(machine.answer(open, .failure(missing)) == .fail(missing), "a caller's step after the move fails")
    machine = Self.machine(.playing)
    _ = machine.handle(finished)
    #expect(machine.answer(open, .failure(.cancelled)) == .fail(.cancelled), "a move nobody waits for ends")
    #expect(machine.answer(open, .failure(missing)) == .fail(missing), "and counts no skips afterwards")
  }

  @Test(arguments: [PlaybackStatus.stopped, .playing, .paused])
  func reconcilingSaysWhatTheOutputReallyDoes(status: PlaybackStatus) {
    var machine = Self.machine(status)
    let corked = machine.answer(.status, .success(.confirmed(Self.confirmation(4.5, running: false), track: nil)))
      .published
    #expect(corked?.status == (status == .playing ? .paused : status) && corked?.position.seconds == 4.5)
    let running = machine.answer(.status, .success(.confirmed(Self.confirmation(4.6, running: true), track: nil)))
      .published
    #expect(running?.status == .playing && running?.position.rate == 1)
  }

  @Test(arguments: [PlaybackStatus.idle, .ended, .failed(failure)])
  func withNoTrackOpenThereIsNothingToReconcile(status: PlaybackStatus) {
    var machine = Self.machine(status)
    #expect(
      machine.answer(.status, .success(.confirmed(Self.confirmation(4.5, running: true), track: nil))).published == nil)
  }

  @Test func anOpenToPlayIsStartedUnlessTheOutputHandedItOverPlaying() {
    let corked = Self.confirmation(0, running: false, stream: 8)
    let running = Self.confirmation(0.01, running: true, stream: 8)
    let play = OutputStep.open(queue: Self.queue, index: 2, seconds: 0, then: .playing)
    #expect(play.followUp(afterOpening: corked) == .start)
    #expect(play.followUp(afterOpening: running) == nil)
    for then in [OutputStep.StatusAfterOpen.stopped, .paused] {
      let stay = OutputStep.open(queue: Self.queue, index: 2, seconds: 0, then: then)
      #expect(stay.followUp(afterOpening: corked) == nil && stay.followUp(afterOpening: running) == nil)
    }
    #expect(OutputStep.start.followUp(afterOpening: corked) == nil)
  }

  @Test func theUpcomingTrackIsOfferedOncePerTrackAndStream() {
    var machine = Self.machine(.playing)
    #expect(machine.offerIsDue)
    #expect(machine.takeOffer() == .init(path: "c.flac", index: 2, following: 7))
    #expect(!machine.offerIsDue && machine.takeOffer() == nil, "offered once")
    // A new stream (a seek that reopened, a reconnection) needs the offer again.
    _ =
      machine.answer(
        .open(queue: Self.queue, index: 1, seconds: 4, then: .playing),
        .success(.confirmed(Self.confirmation(4, running: true, stream: 9), track: Self.track))
      ).published
    #expect(machine.takeOffer() == .init(path: "c.flac", index: 2, following: 9))
    // Repeating the track names another upcoming track: offered again.
    guard case .complete(let repeating?) = machine.decide(.repeatMode(.one)) else {
      Issue.record("repeat needs no output")
      return
    }
    _ = machine.apply(repeating)
    #expect(machine.takeOffer() == .init(path: "b.flac", index: 1, following: 9))
    #expect(Self.machine(.paused).offerIsDue, "a paused track is offered its successor too")
    #expect(!Self.machine(.ended).offerIsDue && Self.machine(.ended).upcoming == nil)
  }
}
