import Futures
import Synchronization
import Testing

/// Many threads racing on the same futures. 100,000 rounds in all, spread over the tests below.
@Suite("Stress", .serialized, .timeLimit(.minutes(5)))
struct StressTests {
  /// The bookkeeping for one raced future.
  final class Round: Sendable {
    let future: Future<Int, TestError>
    let resolver: Future<Int, TestError>.Resolver
    let wins = Atomic(0)
    let winner = Atomic(0)
    let earlyCallbacks = Atomic(0)
    let lateCallbacks = Atomic(0)
    let mismatches = Atomic(0)

    init() {
      (future, resolver) = Future<Int, TestError>.pending()
    }

    /// The outcome each settling operation would produce, by number.
    static func expected(_ winner: Int) -> Outcome<Int, TestError>? {
      switch winner {
      case 1: return .success(1)
      case 2: return .failure(.boom)
      case 3: return .cancelled
      default: return nil
      }
    }

    func won(_ operation: Int) {
      wins.add(1, ordering: .relaxed)
      winner.store(operation, ordering: .relaxed)
    }

    func observe(_ outcome: Outcome<Int, TestError>, late: Bool) {
      if late {
        lateCallbacks.add(1, ordering: .relaxed)
      } else {
        earlyCallbacks.add(1, ordering: .relaxed)
      }
      // The winner is recorded just after the winning call returns, so compare with what the outcome says.
      if outcome != future.outcome { mismatches.add(1, ordering: .relaxed) }
    }
  }

  @Test("resolve, reject, cancel and register race on each future: one winner, every callback once")
  func settleAndRegisterRace() async {
    let threads = 4
    let chunk = 1_000
    let chunks = 60
    for _ in 0..<chunks {
      let rounds = (0..<chunk).map { _ in Round() }
      for round in rounds {
        round.future.whenComplete { [round] in round.observe($0, late: false) }
      }
      await onDedicatedThreads(threads) { thread in
        for (index, round) in rounds.enumerated() {
          // Every future gets each of the four operations, each from a different thread.
          switch (index + thread) % threads {
          case 0: if round.resolver.resolve(1) { round.won(1) }
          case 1: if round.resolver.reject(.boom) { round.won(2) }
          case 2: if round.future.cancel() { round.won(3) }
          default: round.future.whenComplete { [round] in round.observe($0, late: true) }
          }
        }
      }
      for round in rounds {
        #expect(round.wins.load(ordering: .relaxed) == 1)
        #expect(round.future.outcome == Round.expected(round.winner.load(ordering: .relaxed)))
        #expect(round.earlyCallbacks.load(ordering: .relaxed) == 1)
        #expect(round.lateCallbacks.load(ordering: .relaxed) == 1)
        #expect(round.mismatches.load(ordering: .relaxed) == 0)
      }
    }
  }

  @Test("callbacks registered from two threads while a third settles: each once, in per-thread order")
  func registerWhileSettling() async {
    let perThread = 200
    for _ in 0..<100 {
      let (future, resolver) = Future<Int, TestError>.pending()
      let seen = Recorder<(thread: Int, index: Int)>()
      await onDedicatedThreads(3) { thread in
        if thread == 2 {
          resolver.resolve(1)
          return
        }
        for index in 0..<perThread {
          future.whenSuccess { _ in seen.record((thread, index)) }
        }
      }
      let events = seen.all
      #expect(events.count == 2 * perThread)
      for thread in 0..<2 {
        let indices = events.filter { $0.thread == thread }.map(\.index)
        #expect(indices == Array(0..<perThread))
      }
    }
  }

  @Test("one thread resolves while another registers, on each of 20,000 futures: nothing is lost")
  func resolveVersusRegister() async {
    let count = 20_000
    let pairs = (0..<count).map { _ in Future<Int, Never>.pending() }
    let delivered = Counter()
    await onDedicatedThreads(2) { thread in
      for (future, resolver) in pairs {
        if thread == 0 {
          resolver.resolve(1)
        } else {
          future.whenSuccess { _ in delivered.increment() }
        }
      }
    }
    #expect(delivered.value == count)
  }

  @Test("a derived future is cancelled while its source resolves: consistent outcomes, no lost callbacks")
  func cancelDerivedVersusResolve() async {
    let count = 10_000
    let sources = (0..<count).map { _ in Future<Int, TestError>.pending() }
    let derived = sources.map { $0.future.map { $0 + 1 } }
    let settledDerived = Counter()
    for future in derived { future.whenComplete { _ in settledDerived.increment() } }
    await onDedicatedThreads(2) { thread in
      for index in 0..<count {
        if thread == 0 {
          sources[index].resolver.resolve(index)
        } else {
          derived[index].cancel()
        }
      }
    }
    #expect(settledDerived.value == count)
    for index in 0..<count {
      switch derived[index].outcome {
      case .success(let value):
        #expect(value == index + 1)
        #expect(sources[index].future.outcome == .success(index))
      case .cancelled:
        // The source was either cancelled with it (it was the only waiter) or had already resolved.
        let source = sources[index].future.outcome
        #expect(source == .cancelled || source == .success(index))
      default:
        Issue.record("unexpected outcome \(String(describing: derived[index].outcome))")
      }
    }
  }

  @Test("awaiting tasks race with resolution and with their own cancellation: each resumes exactly once")
  func awaitersRace() async {
    let count = 10_000
    let pairs = (0..<count).map { _ in Future<Int, CancellableTestError>.pending() }
    let resumed = Counter()
    await withTaskGroup(of: Void.self) { group in
      for (index, (future, resolver)) in pairs.enumerated() {
        let waiter = Task {
          _ = await future.settled
          resumed.increment()
        }
        group.addTask {
          if index.isMultiple(of: 2) { waiter.cancel() }
          resolver.resolve(index)
          await waiter.value
        }
      }
    }
    #expect(resumed.value == count)
    for (index, (future, _)) in pairs.enumerated() {
      let outcome = future.outcome
      #expect(outcome == .success(index) || (index.isMultiple(of: 2) && outcome == .cancelled))
    }
  }
}
