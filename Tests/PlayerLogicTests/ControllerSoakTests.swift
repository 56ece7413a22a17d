import AudioTestSupport
import Futures
import PlayerCore
import PlayerTestSupport
import Testing

/// 100,000 random commands through one controller (10,000 under a sanitizer, where they took 96 s): every
/// future settles, and nothing is retained afterwards (futures, observers, queued jobs).
@Suite struct ControllerSoakTests {
  static let commands = Sanitizer.scaled(100_000)

  @Test func aHundredThousandCommandsLeaveNothingBehind() async {
    // Busy for seconds: not at the same time as a test that plays real audio.
    await ExclusiveSink.run { await soak() }
  }

  private func soak() async {
    let h = Harness()
    let baseline = h.controller.observerCount
    var rng = SplitMix64(seed: 0x5EED)
    var samples: [Weak] = []
    var settled = 0
    await h.run(.load(["long-a.flac", "long-b.flac", "long-c.flac"]))
    let extra = h.controller.observe { _ in }
    for i in 0..<Self.commands {
      let command: PlayerCommand
      switch Int.random(in: 0..<9, using: &rng) {
      case 0: command = .play
      case 1: command = .pause
      case 2: command = .seek(.absolute(Double(Int.random(in: 0...29, using: &rng))))
      case 3: command = .volume(.absolute(Int.random(in: 0...100, using: &rng)))
      case 4: command = .next
      case 5: command = .previous
      case 6: command = .stop
      case 7: command = .jump(toIndex: Int.random(in: 0...2, using: &rng))
      default: command = .toggle
      }
      let future = h.controller.send(command)
      if i % 1_000 == 0 { samples.append(Weak(future)) }
      switch await future.settled {
      case .success, .failure, .cancelled: settled += 1
      }
    }
    extra.cancel()
    await h.idle()
    #expect(settled == Self.commands)
    #expect(h.controller.isIdle)
    #expect(h.controller.observerCount == baseline)
    #expect(samples.allSatisfy { $0.object == nil }, "settled command futures are not retained")
  }
}
