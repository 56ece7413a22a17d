import PlayerCore

/// How large the stream's buffer at the server is, and how often its clock is read: small while a start or a
/// command may wait on it, large once audio flows with nothing asked (on PulseAudio, not PipeWire). Decides
/// only; ``PulseOutput`` carries out what it returns. Measurements: docs/performance.md, "The server's share".
struct BufferPolicy: Equatable, Sendable {
  /// A stream's buffer attributes in µs of its audio; `prebuffer` nil leaves the server's default.
  struct Attributes: Equatable, Sendable {
    /// `tlength`: what the server keeps queued.
    var length: UInt64
    /// `prebuf`: what must be queued before playback starts, nil for the server's default (all of `length`).
    var prebuffer: UInt64?
    /// `minreq`: how much the server asks for at a time.
    var request: UInt64
  }

  /// The start-up buffer in seconds (``PulseOutput/Configuration/targetLatency``).
  let targetLatency: Double
  /// The steady buffer in seconds (``PulseOutput/Configuration/steadyLatency``).
  let steadyLatency: Double
  /// What the connected server is, once it said.
  private(set) var server = PulseServerKind.unknown
  /// The stream has the steady buffer.
  private(set) var isSteady = false
  /// The steady buffer lets the sink hold a quarter of it.
  private(set) var sinkIsRelaxed = false
  /// The wait before the next timing request, in µs.
  private(set) var timingInterval: UInt64 = 0

  /// A policy for these buffer lengths, on a server not identified yet.
  init(targetLatency: Double, steadyLatency: Double) {
    self.targetLatency = targetLatency
    self.steadyLatency = steadyLatency
  }

  /// The server said what it is.
  mutating func identified(_ server: PulseServerKind) { self.server = server }

  /// The connection went: the next one may be to another server.
  mutating func disconnected() { server = .unknown }

  /// A new stream starts with the start-up buffer: ``startAttributes``.
  mutating func streamCreated() {
    isSteady = false
    sinkIsRelaxed = false
  }

  /// What a stream starts with and goes back to at each cork: `targetLatency`, asked for a quarter at a time.
  /// Left to itself, PulseAudio 16 asks for 20 ms at a time, waking splay and the server fifty times a second.
  var startAttributes: Attributes {
    let target = UInt64(targetLatency * 1e6)
    return Attributes(length: target, prebuffer: nil, request: target / 4)
  }

  /// The steady buffer's length and its request size while its queue fills, in seconds, for audio of
  /// `bytesPerSecond` (PulseAudio's queue takes 4 MiB at most, so formats with more than 3 MiB a second get less).
  func steadyLengths(bytesPerSecond: Double) -> (length: Double, request: Double) {
    let steady = min(steadyLatency, Double(3 << 20) / bytesPerSecond)
    return (steady, (steady - 2 * (targetLatency / 4)) / 2)
  }

  /// How many seconds the sample ring holds for a new stream: two, or where the steady buffer may come a whole
  /// request and half a second, so that one request is answered from the ring and one fill refills it.
  func ringSeconds(bytesPerSecond: Double) -> Double {
    let least = max(targetLatency * 2, 2)
    let (length, request) = steadyLengths(bytesPerSecond: bytesPerSecond)
    guard length > targetLatency, server != .pipeWire else { return least }
    return max(least, request + 0.5)
  }

  /// How many frames a corked stream decodes ahead: what the server's buffer takes and the first writes after
  /// the uncork; the rest is decoded once it plays.
  func corkedFillFrames(sampleRate: Int) -> Int {
    Int(targetLatency * Double(sampleRate)) + 2 * 4096
  }

  /// The wait before the next timing request in µs: 10 ms after an uncork (`restart`), then twice as long each
  /// time up to 1.5 s (6 s with the steady buffer), as libpulse's own updates do, but only while audio flows.
  mutating func nextTimingWait(restart: Bool) -> UInt64 {
    if restart { timingInterval = 10_000 }
    let wait = timingInterval
    timingInterval = min(timingInterval * 2, isSteady ? 6_000_000 : 1_500_000)
    return wait
  }

  /// A timing request is due while audio flows (`flowing`: uncorked, not draining, the track not all decoded):
  /// after 0.6 s with nothing asked, the steady buffer, on PulseAudio. Returns the attributes to set, if any.
  mutating func timingDue(flowing: Bool, bytesPerSecond: Double) -> Attributes? {
    guard timingInterval >= 640_000, !isSteady, flowing, server == .pulseAudio else { return nil }
    let (length, request) = steadyLengths(bytesPerSecond: bytesPerSecond)
    guard length > targetLatency else { return nil }
    isSteady = true
    return steadyAttributes(length: length, request: request)
  }

  /// A timing update showed `queued` µs at the server: once the steady buffer's queue is full, the sink may hold
  /// a quarter of it (`(tlength − 2·minreq) / 2` with `PA_STREAM_ADJUST_LATENCY`), which lets the server sleep.
  /// Not sooner: a sink that takes seconds from a stream holding less underruns it.
  mutating func timingUpdated(queued: UInt64, flowing: Bool, bytesPerSecond: Double) -> Attributes? {
    guard isSteady, !sinkIsRelaxed, flowing else { return nil }
    let (length, _) = steadyLengths(bytesPerSecond: bytesPerSecond)
    guard queued >= UInt64((length / 4 + 0.5) * 1e6) else { return nil }
    sinkIsRelaxed = true
    return steadyAttributes(length: length, request: length / 4)
  }

  /// A cork, or the whole track at the server: back to the start-up buffer, so that the next start or seek is
  /// as quick as the first and a drain is acknowledged as the end plays. Nil when that is what the stream has.
  mutating func shrink() -> Attributes? {
    guard isSteady else { return nil }
    isSteady = false
    sinkIsRelaxed = false
    return startAttributes
  }

  /// Whether the decoding queue should hand audio over early: not with the steady buffer, where the server
  /// holds seconds and an early hand-over only wakes the loop once more for the same request.
  func handsOverEarly(running: Bool) -> Bool { !(running && isSteady) }

  private func steadyAttributes(length: Double, request: Double) -> Attributes {
    Attributes(
      length: UInt64(length * 1e6), prebuffer: UInt64(targetLatency * 1e6), request: UInt64(request * 1e6))
  }
}

/// Which server answers the pulse protocol, as far as the buffer is concerned.
enum PulseServerKind {
  /// Not known yet.
  case unknown
  /// PulseAudio itself.
  case pulseAudio
  /// PipeWire's pulse server.
  case pipeWire
}
