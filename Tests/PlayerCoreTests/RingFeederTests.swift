import AudioTestSupport
import Foundation
import PlayerTestSupport
import Testing

@testable import PlayerCore
@testable import PlayerPulse

/// The decoding side of the Pulse output against a host that records what it is told: how much a fill
/// decodes, when it hands audio over, how a next track and a failed read go into the ring, and where a refill
/// lands.
@Suite struct RingFeederTests {
  /// A stream as the feeder sees it: one ring, its decoder, an optional next track, and what it was told.
  private final class Host: RingFeederHost, @unchecked Sendable {
    private let lock = NSLock()
    // Touched only under `lock`.
    var ring: SampleRing?
    /// A ring whose refill only marks how far the feeder's queue has got (``drain(_:)``): counted apart.
    var marker: SampleRing?
    var markersLanded = 0
    var source: (any AudioDecoder)?
    var upcoming: (any AudioDecoder)?
    var running = true
    var plan = FillPlan(corkedFrames: 8_820, handsOverEarly: true)
    var handOvers = 0
    /// What the ring held at each hand-over.
    var handedOver: [Int] = []
    var quietEnds = 0
    var trackEnds = 0
    var failures: [PlayerError] = []
    var landings: [SeekLanding] = []

    func locked<T>(_ body: () -> T) -> T {
      lock.lock()
      defer { lock.unlock() }
      return body()
    }

    func sourceLocked(for ring: SampleRing) -> (any AudioDecoder)? { self.ring === ring ? source : nil }
    func fillPlanLocked() -> FillPlan { plan }
    func isRunningLocked() -> Bool { running }
    func decodedLocked(notices: [String], titles: [TitleChange], ring: SampleRing, decoder: any AudioDecoder) {}
    func readFailedLocked(_ error: PlayerError, ring: SampleRing) { failures.append(error) }

    func trackEndedLocked(ring: SampleRing, generation: UInt64) -> (decoder: any AudioDecoder, rewind: Bool)? {
      trackEnds += 1
      guard let next = upcoming, ring.markBoundary(generation: generation) else { return nil }
      upcoming = nil
      return (next, false)
    }

    func landedLocked(_ landing: SeekLanding, ring: SampleRing) -> Bool {
      if ring === marker {
        markersLanded += 1
        return true
      }
      guard self.ring === ring else { return false }
      landings.append(landing)
      return true
    }

    func handOverLocked(_ ring: SampleRing) {
      guard ring !== marker else { return }
      handOvers += 1
      handedOver.append(ring.availableFrames)
    }
    func fillEndedQuietlyLocked(_ ring: SampleRing) { if ring !== marker { quietEnds += 1 } }
  }

  /// A decoder of ``FakeDecoder``'s ramp that fails to read past `readableFrames`, and to seek at all when
  /// `seeks` is false.
  private final class Damaged: AudioDecoder {
    private let ramp = FakeDecoder(path: "damaged.flac")
    private let readableFrames: Int64
    private let seeks: Bool
    var info: TrackInfo { ramp.info }

    init(readableFrames: Int64, seeks: Bool = true) {
      self.readableFrames = readableFrames
      self.seeks = seeks
    }

    func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(PlayerError) -> Int {
      let left = readableFrames - ramp.framesRead
      guard left > 0 else { throw .unsupportedFormat(path: info.path, detail: "a damaged block") }
      return try ramp.read(into: buffer, frames: min(frames, Int(left)))
    }

    func seek(toFrame frame: Int64) throws(PlayerError) -> Int64 {
      guard seeks else { throw .unsupportedFormat(path: info.path, detail: "no seek table") }
      return try ramp.seek(toFrame: frame)
    }
  }

  private let feeder = RingFeeder()

  private func ring(frames: Int) throws -> SampleRing {
    try #require(SampleRing(frames: frames, channels: 2))
  }

  /// The first channel of every frame the ring holds, as ``FakeDecoder``'s frame numbers.
  private func frameNumbers(in ring: SampleRing) -> [Int] {
    let frames = ring.availableFrames
    var samples = [Float](repeating: -1, count: frames * 2)
    _ = samples.withUnsafeMutableBytes { ring.pop(into: $0.baseAddress!, maxFrames: frames) }
    return stride(from: 0, to: samples.count, by: 2).map { Int((samples[$0] * 65_536).rounded()) }
  }

  /// Waits for the feeder's queue: a refill of a ring that is the host's runs after whatever was queued before.
  private func drain(_ host: Host) async throws {
    let marker = try ring(frames: 16)
    let before = host.locked {
      host.marker = marker
      return host.markersLanded
    }
    feeder.refill(marker, from: 0, orBackTo: 0, decoder: FakeDecoder(path: "marker.flac"), for: host) { _ in }
    #expect(await waitFor(within: 10) { host.locked { host.markersLanded > before } })
  }

  @Test func aPlayingStreamsRingIsFilledAndHandedOverAfterTwoChunksAndAtTheEnd() async throws {
    let host = Host()
    let ring = try ring(frames: 20_000)
    host.locked { (host.ring, host.source) = (ring, FakeDecoder(path: "a.flac")) }
    feeder.scheduleFill(ring, for: host)
    #expect(await waitFor(within: 10) { host.locked { host.handOvers == 2 } })
    try await drain(host)
    #expect(host.locked { (host.handedOver, host.quietEnds) } == ([2 * RingFeeder.chunkFrames, 20_000], 0))
    #expect(frameNumbers(in: ring) == Array(0..<20_000), "the track from its first frame, all of the ring")
  }

  @Test func aCorkedStreamGetsWhatTheServerTakesInWholeChunksAndOneHandOver() async throws {
    let host = Host()
    let ring = try ring(frames: 40_000)
    host.locked {
      (host.ring, host.source, host.running) = (ring, FakeDecoder(path: "a.flac"), false)
      host.plan = FillPlan(corkedFrames: 5_000, handsOverEarly: false)
    }
    feeder.scheduleFill(ring, for: host)
    #expect(await waitFor(within: 10) { host.locked { host.handOvers == 1 } })
    try await drain(host)
    #expect(host.locked { host.handedOver } == [2 * RingFeeder.chunkFrames], "whole chunks up to 5,000, then one")
  }

  @Test func theSourceIsTheHostsWhenTheFillRunsAndNoneOnceItsRingIsGone() async throws {
    let host = Host()
    let ring = try ring(frames: 20_000)
    host.locked { (host.ring, host.source) = (try? self.ring(frames: 16), FakeDecoder(path: "a.flac")) }
    feeder.scheduleFill(ring, for: host)
    try await drain(host)
    #expect(ring.availableFrames == 0)
    #expect(host.locked { (host.handOvers, host.quietEnds) } == (0, 0), "a ring that is gone hears nothing")
  }

  @Test func theNextTrackFollowsTheLastFrameInTheSameRing() async throws {
    let host = Host()
    let ring = try ring(frames: 8_000)
    let first = FakeDecoder(path: "short.flac", seconds: 0.05)
    host.locked { (host.ring, host.source, host.upcoming) = (ring, first, FakeDecoder(path: "next.flac")) }
    feeder.scheduleFill(ring, for: host)
    #expect(await waitFor(within: 10) { host.locked { host.handOvers == 2 } })
    try await drain(host)
    #expect(host.locked { host.trackEnds } == 1)
    #expect(frameNumbers(in: ring) == Array(0..<2_205) + Array(0..<5_795), "the next track from its first frame")
  }

  @Test func aFailedReadEndsTheTrackAfterWhatWasDecoded() async throws {
    let host = Host()
    let ring = try ring(frames: 20_000)
    host.locked { (host.ring, host.source) = (ring, Damaged(readableFrames: 5_000)) }
    feeder.scheduleFill(ring, for: host)
    #expect(await waitFor(within: 10) { host.locked { !host.failures.isEmpty } })
    try await drain(host)
    #expect(host.locked { (host.failures.map(\.code), host.trackEnds) } == (["unsupported-format"], 0))
    #expect(ring.fillState.endOfTrack)
    #expect(frameNumbers(in: ring) == Array(0..<5_000))
  }

  @Test func aRefillStartsWhereTheDecoderLanded() async throws {
    let host = Host()
    let ring = try ring(frames: 10_000)
    let decoder = FakeDecoder(path: "a.flac")
    host.locked { (host.ring, host.source) = (ring, decoder) }
    let heard = Locked<[SeekLanding]>([])
    feeder.refill(ring, from: 30_000, orBackTo: 0, decoder: decoder, for: host) { landing in
      heard.withLock { $0.append(landing) }
    }
    #expect(await waitFor(within: 10) { host.locked { host.handOvers == 2 } })
    #expect(heard.withLock { $0.map(\.frame) } == [30_000])
    #expect(ring.frame == 30_000)
    #expect(frameNumbers(in: ring) == Array(30_000..<40_000))
  }

  @Test func aDecoderThatCannotMoveEndsTheRingEmptyAndSaysWhy() async throws {
    let host = Host()
    let ring = try ring(frames: 10_000)
    let decoder = Damaged(readableFrames: 100_000, seeks: false)
    host.locked { (host.ring, host.source) = (ring, decoder) }
    feeder.refill(ring, from: 30_000, orBackTo: 0, decoder: decoder, for: host) { _ in }
    #expect(await waitFor(within: 10) { host.locked { host.handOvers == 1 } })
    let landing = try #require(host.locked { host.landings.first })
    #expect(landing.frame == nil && landing.error?.code == "unsupported-format")
    #expect(ring.fillState.endOfTrack && ring.availableFrames == 0)
  }

  @Test func aRefillOfARingThatIsGoneLeavesItAlone() async throws {
    let host = Host()
    let ring = try ring(frames: 10_000)
    let decoder = FakeDecoder(path: "a.flac")
    host.locked { (host.ring, host.source) = (try? self.ring(frames: 16), decoder) }
    let heard = Locked(0)
    feeder.refill(ring, from: 30_000, orBackTo: 0, decoder: decoder, for: host) { _ in heard.withLock { $0 += 1 } }
    try await drain(host)
    #expect(heard.withLock { $0 } == 0)
    #expect(ring.availableFrames == 0 && !ring.fillState.endOfTrack)
    #expect(host.locked { host.handOvers } == 0)
  }
}
