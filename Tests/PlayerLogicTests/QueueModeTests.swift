import Foundation
import Futures
import PlayerTestSupport
import PropertyBased
import Testing

@testable import PlayerCore

/// Repeat (off, all, one) and shuffle, on the simulated output in virtual time: 3 s tracks.
@Suite struct QueueModeTests {
  /// The queue indices that played, in order, from the published states (each change of track once).
  private func played(_ harness: Harness) -> [Int] {
    var order: [Int] = []
    for state in harness.states where state.status == .playing {
      if let index = state.index, order.last != index { order.append(index) }
    }
    return order
  }

  @Test func repeatAllStartsOverAfterTheLastTrackAndNextWrapsAround() async {
    let harness = Harness()
    await harness.run(.load(["a.flac", "b.flac"]))
    #expect(await harness.run(.repeatMode(.all)).succeeded)
    #expect(harness.controller.state.repeatMode == .all)
    await harness.run(.play)
    await harness.pass(7)
    let state = harness.controller.state
    #expect(state.status == .playing, "never ends")
    #expect(state.index == 0, "a, b, then a again")
    #expect(await harness.run(.previous).succeeded)
    #expect(harness.controller.state.index == 1, "previous from the first wraps to the last")
    #expect(await harness.run(.next).succeeded)
    #expect(harness.controller.state.index == 0)
  }

  @Test func repeatOnePlaysTheTrackAgainButNextStillMovesOn() async {
    let harness = Harness()
    await harness.run(.load(["a.flac", "b.flac"]))
    await harness.run(.repeatMode(.one))
    await harness.run(.play)
    await harness.pass(7)
    #expect(harness.controller.state.index == 0, "still the first track after two of its lengths")
    #expect(harness.controller.state.status == .playing)
    #expect(await harness.run(.next).succeeded)
    #expect(harness.controller.state.index == 1)
    #expect(await harness.run(.next).failureCode == "invalid-state", "the end of the queue, repeat one or not")
  }

  @Test func repeatOffEndsTheQueueAsBefore() async {
    let harness = Harness()
    await harness.run(.load(["a.flac", "b.flac"]))
    await harness.run(.play)
    await harness.pass(7)
    #expect(harness.controller.state.status == .ended)
    #expect(harness.controller.state.index == 1)
  }

  @Test func shufflePlaysEveryTrackOnceInSomeOrderKeepingTheQueue() async {
    let queue = (1...8).map { "t\($0).flac" }
    let harness = Harness()
    await harness.run(.load(queue))
    await harness.run(.shuffle(true))
    await harness.run(.play)
    await harness.pass(3 * 8 + 1)
    let state = harness.controller.state
    #expect(state.status == .ended)
    #expect(Array(state.queue) == queue, "the queue keeps its order; the play order is the shuffle's")
    let order = played(harness)
    #expect(order.first == 0, "the current track stays current")
    #expect(order.sorted() == Array(0..<8), "each track once: \(order)")
  }

  /// `play --shuffle` turns shuffle on before loading: the queue keeps the order given and starts at a random
  /// track, every track plays once, and turning shuffle off plays on in the queue's order.
  @Test func aQueueLoadedWithShuffleOnStartsAtARandomTrackAndKeepsItsOrder() async {
    let queue = (1...8).map { "t\($0).flac" }
    var starts = Set<Int>()
    for _ in 0..<12 {
      let harness = Harness()
      await harness.run(.shuffle(true))
      await harness.run(.load(queue))
      #expect(Array(harness.controller.state.queue) == queue, "the queue is never reordered")
      starts.insert(harness.controller.state.index ?? -1)
    }
    #expect(starts.count > 1, "the first track is drawn, not always the first file: \(starts)")
    let harness = Harness()
    await harness.run(.shuffle(true))
    await harness.run(.load(queue))
    await harness.run(.play)
    await harness.pass(3 * 8 + 1)
    #expect(harness.controller.state.status == .ended)
    #expect(played(harness).sorted() == Array(0..<8), "each track once: \(played(harness))")
    let again = Harness()
    await again.run(.shuffle(true))
    await again.run(.load(queue))
    let first = again.controller.state.index ?? 0
    await again.run(.shuffle(false))
    if first < 7 {
      #expect(await again.run(.next).succeeded)
      #expect(again.controller.state.index == first + 1, "shuffle off: the queue's own order from here")
    }
  }

  @Test func nextAndPreviousFollowTheShuffleBothWays() async {
    let harness = Harness()
    await harness.run(.load((1...6).map { "t\($0).flac" }))
    await harness.run(.shuffle(true))
    var forward: [Int] = [harness.controller.state.index ?? -1]
    while await harness.run(.next).succeeded { forward.append(harness.controller.state.index ?? -1) }
    #expect(forward.sorted() == Array(0..<6))
    var backward: [Int] = [harness.controller.state.index ?? -1]
    while await harness.run(.previous).succeeded { backward.append(harness.controller.state.index ?? -1) }
    #expect(backward == forward.reversed())
    await harness.run(.shuffle(false))
    #expect(await harness.run(.next).succeeded)
    #expect(harness.controller.state.index == (forward.first ?? 0) + 1, "back in the queue's order")
  }

  @Test func aRepeatedQueueOfFilesThatAllFailEndsAfterOneRound() async {
    let harness = Harness()
    await harness.run(.load(["a.flac", "missing1.flac", "missing2.flac"]))
    await harness.run(.repeatMode(.all))
    await harness.run(.play)
    await harness.pass(10)
    // a plays again and again; the missing ones are skipped each round, never looped on.
    #expect(harness.controller.state.status == .playing)
    #expect(harness.controller.state.index == 0)
  }

  /// The shuffle order comes from the machine's own seeded generator: the same seed, the same order; the
  /// current track first, every other one once.
  @Test func aShuffleOrderIsAPermutationFromTheSeed() {
    func order(_ seed: UInt64, first: Int?) -> [Int] {
      var random = SplitMix64(seed: seed)
      return ShuffleOrder.drawn(count: 12, first: first, using: &random).order
    }
    #expect(order(7, first: 4) == order(7, first: 4))
    #expect(order(7, first: 4) != order(8, first: 4))
    #expect(order(7, first: 4).first == 4)
    #expect(order(7, first: 4).sorted() == Array(0..<12))
    #expect(order(7, first: nil).sorted() == Array(0..<12))
  }

  /// Tracks enqueued while shuffled join the tracks still to come: what already played does not play again
  /// (the whole order used to be drawn anew, replaying some), and every track plays once.
  @Test func tracksEnqueuedWhileShuffledJoinThoseStillToCome() async {
    for _ in 0..<6 {
      let harness = Harness()
      await harness.run(.shuffle(true))
      await harness.run(.load((1...8).map { "a\($0).flac" }))
      await harness.run(.play)
      await harness.pass(3 * 3 + 1)
      let before = played(harness)
      #expect(await harness.run(.enqueue((1...8).map { "b\($0).flac" })).succeeded)
      await harness.pass(3 * 14 + 1)
      let order = played(harness)
      #expect(harness.controller.state.status == .ended)
      #expect(order.sorted() == Array(0..<16), "each track once: \(order)")
      #expect(Array(order.prefix(before.count)) == before, "what played before the enqueue stays first")
      #expect(order.dropFirst(before.count).contains { $0 < 8 }, "the new tracks mix with those to come: \(order)")
    }
  }

  /// Extending an order keeps every place up to the current track's, stays a permutation whose places agree
  /// with it, and puts each new index after the current one.
  @Test func anExtendedOrderKeepsWhatPlayedAndStaysAPermutation() async {
    let sizes = Gen.int(in: 1...40)
    await propertyCheck(count: 300, input: sizes, Gen.int(in: 0...39), Gen.int(in: 0...60), Gen.int(in: 0...Int.max)) {
      count, current, added, seed in
      let current = current % count
      var random = SplitMix64(seed: UInt64(seed))
      var order = ShuffleOrder.drawn(count: count, first: nil, using: &random)
      let place = order.place(of: current)
      let kept = Array(order.order.prefix(place + 1))
      order.extend(to: count + added, after: current, using: &random)
      #expect(order.order.sorted() == Array(0..<(count + added)))
      #expect(Array(order.order.prefix(place + 1)) == kept)
      #expect((0..<(count + added)).allSatisfy { order[order.place(of: $0)] == $0 })
      #expect((count..<(count + added)).allSatisfy { order.place(of: $0) > place })
    }
  }

  @Test func theModesTravelInTheStateAndTheirCommandsParse() throws {
    #expect(try CommandParser.parse("repeat one") == .repeatMode(.one))
    #expect(try CommandParser.parse("shuffle on") == .shuffle(true))
    #expect(PlayerCommand.repeatMode(.all).description == "repeat all")
    #expect(throws: CommandParseError.self) { try CommandParser.parse("repeat sometimes") }
  }
}

extension QueueModeTests {
  /// A collection of any size: a million tracks load, one more is refused with `limit-exceeded`; the queue's
  /// revision moves with its paths only.
  @Test func aMillionTracksLoadAndTheRevisionFollowsTheQueue() {
    let machine = PlayerStateMachine(state: PlayerState(status: .stopped, queue: ["a.flac"], index: 0))
    let million = Array(repeating: "t.flac", count: PlayerStateMachine.maximumQueueLength)
    guard case .perform = machine.decide(.load(million)) else {
      Issue.record("a million tracks are refused")
      return
    }
    #expect(
      machine.decide(.load(million + ["one.flac"]))
        == .reject(.limitExceeded(what: "tracks in the queue", limit: 1_000_000)))
    var moving = machine
    let before = moving.state.queueRevision
    guard case .complete(let next?) = moving.decide(.enqueue(["b.flac"])), let published = moving.apply(next) else {
      Issue.record("enqueue did not complete")
      return
    }
    #expect(published.queueRevision == before + 1)
    guard case .complete(let repeated?) = moving.decide(.repeatMode(.all)), let same = moving.apply(repeated) else {
      Issue.record("repeat did not complete")
      return
    }
    #expect(same.queueRevision == before + 1, "not a queue change")
  }
}
