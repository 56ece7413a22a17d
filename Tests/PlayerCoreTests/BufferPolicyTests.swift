import Testing

@testable import PlayerCore
@testable import PlayerPulse

/// When the stream's buffer at the server grows, lets the sink hold more, and shrinks, and how often the clock
/// is read: the decisions ``BufferPolicy`` makes, row by row.
@Suite struct BufferPolicyTests {
  /// 44.1 kHz stereo float: 352,800 bytes a second.
  private let cd = 44_100.0 * 2 * 4

  private func policy(on server: PulseServerKind = .pulseAudio) -> BufferPolicy {
    var policy = BufferPolicy(targetLatency: 0.2, steadyLatency: 8)
    policy.identified(server)
    policy.streamCreated()
    return policy
  }

  /// Runs the timing schedule from an uncork until `until` µs have passed; returns each wait and what the
  /// policy asked for at each request.
  private func flow(_ policy: inout BufferPolicy, flowing: Bool = true, until: UInt64)
    -> (waits: [UInt64], changes: [BufferPolicy.Attributes], at: [UInt64])
  {
    var waits: [UInt64] = []
    var changes: [BufferPolicy.Attributes] = []
    var at: [UInt64] = []
    var elapsed: UInt64 = 0
    var wait = policy.nextTimingWait(restart: true)
    while elapsed + wait <= until {
      elapsed += wait
      waits.append(wait)
      if let change = policy.timingDue(flowing: flowing, bytesPerSecond: cd) {
        changes.append(change)
        at.append(elapsed)
      }
      wait = policy.nextTimingWait(restart: false)
    }
    return (waits, changes, at)
  }

  @Test func aStreamStartsWithTheStartUpBufferAskedForAQuarterAtATime() {
    #expect(policy().startAttributes == .init(length: 200_000, prebuffer: nil, request: 50_000))
  }

  @Test func theClockIsReadAfter10msThenTwiceAsLongEachTimeUpTo1point5sOr6sOnceSteady() {
    var pipeWire = policy(on: .pipeWire)
    let (waits, changes, _) = flow(&pipeWire, until: 12_000_000)
    #expect(
      Array(waits.prefix(9)) == [10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 1_500_000])
    #expect(changes.isEmpty, "PipeWire never gets the steady buffer")
    var pulse = policy()
    let steady = flow(&pulse, until: 30_000_000)
    #expect(steady.waits.max() == 6_000_000, "the steady buffer reads the clock every 6 s at most")
  }

  /// Rows: the server, whether audio flows, and whether 0.6 s of quiet flow brings the steady buffer.
  @Test(arguments: [
    (PulseServerKind.pulseAudio, true, true), (.pulseAudio, false, false), (.pipeWire, true, false),
    (.unknown, true, false),
  ])
  func theSteadyBufferComesAfterAQuietSecondOnPulseAudioOnly(server: PulseServerKind, flowing: Bool, steady: Bool) {
    var policy = policy(on: server)
    let (_, changes, at) = flow(&policy, flowing: flowing, until: 2_000_000)
    #expect(changes.count == (steady ? 1 : 0))
    #expect(policy.isSteady == steady)
    guard steady, let change = changes.first else { return }
    // Requests at 10, 30, 70, 150 and 310 ms; at 630 ms the next wait is 0.64 s: audio flows with nothing asked.
    #expect(at == [630_000])
    // 8 s, prebuffered as the start-up buffer, asked for (8 − 0.1) / 2 s at a time while its queue fills.
    #expect(change == .init(length: 8_000_000, prebuffer: 200_000, request: 3_950_000))
  }

  @Test func aFormatOfMoreThan3MiBASecondGetsLessThanTheSteadyLength() {
    let policy = policy()
    let (length, _) = policy.steadyLengths(bytesPerSecond: 192_000 * 8 * 4)
    #expect(abs(length - Double(3 << 20) / (192_000 * 8 * 4)) < 1e-9)
  }

  /// The sink may hold a quarter of the steady buffer once the queue holds that and half a second more.
  @Test(arguments: [(UInt64(1_000_000), false), (2_499_999, false), (2_500_000, true), (8_000_000, true)])
  func theSinkHoldsAQuarterOnceTheQueueIsFull(queued: UInt64, relaxes: Bool) {
    var policy = policy()
    _ = flow(&policy, until: 2_000_000)
    let change = policy.timingUpdated(queued: queued, flowing: true, bytesPerSecond: cd)
    #expect((change != nil) == relaxes)
    if relaxes {
      #expect(change == .init(length: 8_000_000, prebuffer: 200_000, request: 2_000_000))
      #expect(policy.timingUpdated(queued: queued, flowing: true, bytesPerSecond: cd) == nil, "once")
    }
  }

  @Test func noRelaxingBeforeTheSteadyBufferNorWhileNothingFlows() {
    var start = policy()
    #expect(start.timingUpdated(queued: 8_000_000, flowing: true, bytesPerSecond: cd) == nil)
    var steady = policy()
    _ = flow(&steady, until: 2_000_000)
    #expect(steady.timingUpdated(queued: 8_000_000, flowing: false, bytesPerSecond: cd) == nil)
  }

  @Test func aCorkGoesBackToTheStartUpBufferOnceAndTheNextFlowGrowsAgain() {
    var policy = policy()
    #expect(policy.shrink() == nil, "nothing to undo on the start-up buffer")
    _ = flow(&policy, until: 2_000_000)
    _ = policy.timingUpdated(queued: 8_000_000, flowing: true, bytesPerSecond: cd)
    #expect(policy.shrink() == policy.startAttributes)
    #expect(!policy.isSteady && !policy.sinkIsRelaxed)
    #expect(policy.shrink() == nil)
    #expect(flow(&policy, until: 2_000_000).changes.count == 1)
  }

  /// Rows: the server, and the seconds a ring holds for a CD-format stream.
  @Test(arguments: [(PulseServerKind.pulseAudio, 4.45), (.unknown, 4.45), (.pipeWire, 2.0)])
  func theRingHoldsARequestOfTheSteadyBufferAndHalfASecond(server: PulseServerKind, seconds: Double) {
    #expect(abs(policy(on: server).ringSeconds(bytesPerSecond: cd) - seconds) < 1e-9)
  }

  @Test func aCorkedStreamDecodesTheStartUpBufferAndTwoChunks() {
    #expect(policy().corkedFillFrames(sampleRate: 44_100) == 8820 + 8192)
  }

  @Test func aLostConnectionForgetsTheServer() {
    var policy = policy()
    policy.disconnected()
    #expect(policy.server == .unknown)
  }
}
