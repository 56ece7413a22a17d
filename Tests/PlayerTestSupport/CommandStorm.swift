import Foundation
import Futures
import PlayerCore
import Synchronization

/// Several threads sending random commands to one controller at once, for a while: the storm tests of
/// issue 7. Each thread has its own seeded generator (so a failing run can be replayed with its seed) and
/// keeps a bounded number of commands in flight, waiting for their futures before sending more.
package struct CommandStorm {
  /// What a storm did.
  package struct Result {
    /// Commands sent.
    package var sent = 0
    /// Their futures that settled (succeeded, failed or were cancelled) before the wait ran out.
    package var settled = 0
    /// How many of them succeeded.
    package var succeeded = 0

    /// Nothing sent yet.
    package init() {}
  }

  package var threads = 8
  package var seconds: Double
  package var seed: UInt64 = 0x5709_0000
  package var inFlightPerThread = 32
  /// The paths `load` and `enqueue` choose from.
  package var paths: [String]
  /// Seek targets are drawn from `0..<longest` seconds.
  package var longest: Double

  /// A storm of `seconds` over `paths`, seeking within `longest` seconds.
  package init(
    threads: Int = 8, seconds: Double, seed: UInt64 = 0x5709_0000, inFlightPerThread: Int = 32, paths: [String],
    longest: Double
  ) {
    self.threads = threads
    self.seconds = seconds
    self.seed = seed
    self.inFlightPerThread = inFlightPerThread
    self.paths = paths
    self.longest = longest
  }

  /// A random command; the mix leans on the commands that reach the output.
  package func command(using rng: inout SplitMix64) -> PlayerCommand {
    switch Int.random(in: 0..<14, using: &rng) {
    case 0: return .load(Array(paths.shuffled(using: &rng).prefix(Int.random(in: 1...paths.count, using: &rng))))
    case 1: return .enqueue([paths.randomElement(using: &rng)!])
    case 2, 3: return .play
    case 4: return .pause
    case 5: return .toggle
    case 6: return .stop
    case 7: return .seek(.absolute(Double.random(in: 0..<longest, using: &rng)))
    case 8: return .seek(.relative(Double.random(in: -5...5, using: &rng)))
    case 9: return .volume(.absolute(Int.random(in: 0...100, using: &rng)))
    case 10: return .next
    case 11: return .previous
    case 12: return .jump(toIndex: Int.random(in: 0..<paths.count, using: &rng))
    default: return .seek(.percent(Double.random(in: 0...100, using: &rng)))
    }
  }

  /// Runs the storm against `controller` and waits (at most `settleTimeout` seconds after it) for every
  /// future it made.
  package func run(on controller: PlayerController, settleTimeout: Double = 15) -> Result {
    let totals = Lock(Result())
    let group = DispatchGroup()
    let end = Date().addingTimeInterval(seconds)
    for thread in 0..<threads {
      group.enter()
      let worker = Thread {
        var rng = SplitMix64(seed: seed &+ UInt64(thread))
        let done = DispatchSemaphore(value: 0)
        var local = Result()
        var batch = 0
        while Date() < end {
          let future = controller.send(command(using: &rng))
          local.sent += 1
          batch += 1
          future.whenComplete { outcome in
            totals.withLock { total in
              total.settled += 1
              if case .success = outcome { total.succeeded += 1 }
            }
            done.signal()
          }
          if batch == inFlightPerThread {
            for _ in 0..<batch { _ = done.wait(timeout: .now() + settleTimeout) }
            batch = 0
          }
        }
        for _ in 0..<batch { _ = done.wait(timeout: .now() + settleTimeout) }
        totals.withLock { $0.sent += local.sent }
        group.leave()
      }
      worker.start()
    }
    _ = group.wait(timeout: .now() + seconds + settleTimeout + 5)
    return totals.withLock { $0 }
  }
}
