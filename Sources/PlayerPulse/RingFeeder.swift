import PlayerCore

/// How a fill goes, as the stream's buffer policy and state decide when it starts.
struct FillPlan: Equatable, Sendable {
  /// A corked stream needs no more than this in the ring: what the server's buffer takes and the first writes
  /// after the uncork.
  var corkedFrames: Int
  /// Whether the first audio is handed over after two chunks (a start or a seek waits for it), not at the end.
  var handsOverEarly: Bool
}

/// What the decoding side tells the stream it feeds, and asks of it. Every method but ``locked(_:)`` runs with
/// the mainloop lock held and names the ring it is about: a host whose stream has another ring by then (a seek,
/// a new stream) answers as for a ring that is gone.
protocol RingFeederHost: AnyObject, Sendable {
  /// Runs `body` with the mainloop lock held.
  func locked<T>(_ body: () -> T) -> T
  /// The decoder that feeds `ring` now, the next track's once the boundary is marked; nil once `ring` is gone.
  func sourceLocked(for ring: SampleRing) -> (any AudioDecoder)?
  /// How a fill of the stream's ring goes now.
  func fillPlanLocked() -> FillPlan
  /// Whether the stream is uncorked (a corked one needs only ``FillPlan/corkedFrames``).
  func isRunningLocked() -> Bool
  /// `decoder` reported `notices` (a damaged frame skipped) and `titles` (a live stream's) for audio it decoded
  /// into `ring`.
  func decodedLocked(notices: [String], titles: [TitleChange], ring: SampleRing, decoder: any AudioDecoder)
  /// Reading failed: what was decoded still plays, and the track's end is reported with `error`.
  func readFailedLocked(_ error: PlayerError, ring: SampleRing)
  /// The track in `ring` ended at `generation`: the next track's decoder, and whether it must be rewound first,
  /// when one continues the stream (the boundary is then marked); nil otherwise.
  func trackEndedLocked(ring: SampleRing, generation: UInt64) -> (decoder: any AudioDecoder, rewind: Bool)?
  /// A move of the decoder of `ring` landed; false when `ring` is gone and the refill is given up.
  func landedLocked(_ landing: SeekLanding, ring: SampleRing) -> Bool
  /// `ring` holds new audio for the server.
  func handOverLocked(_ ring: SampleRing)
  /// A fill of `ring` ended with nothing handed over since its last hand-over.
  func fillEndedQuietlyLocked(_ ring: SampleRing)
}

/// The decoding side of the stream: decodes the track into its ring on the decoding queue, never on the
/// mainloop thread, and tells the host what happened (``RingFeederHost``). It keeps no stream state of its own:
/// which decoder feeds a ring is asked when a fill runs, not when it was requested.
final class RingFeeder: Sendable {
  /// Frames decoded per read.
  static let chunkFrames = 4096
  /// Chunks decoded before the first hand-over: the first audio after a seek or start must not wait for the
  /// whole ring, and the rest follows in the same call rather than in one wake-up per chunk.
  static let handOverAfter = 2

  private let queue = DecodeQueue()

  /// Decodes more into `host`'s `ring` on the decoding queue, unless a fill is already waiting there.
  func scheduleFill(_ ring: SampleRing, for host: any RingFeederHost) {
    queue.scheduleFill { [self] in
      // Asked now, not at the request: a fill still queued behind the one that crossed into the next track
      // would otherwise read the finished track, find its end and mark the stream's end there.
      guard let source = host.locked({ host.sourceLocked(for: ring) }) else { return }
      fill(ring, from: source, host: host)
    }
  }

  /// Moves `decoder` to `frame` and refills `ring` from there, on the decoding queue. A decoder that cannot go
  /// there goes back to `fallback` instead; one that cannot go anywhere leaves the ring empty at its end, to be
  /// reported as the track's failure. `landed` hears where the ring starts (lock held, before the first audio
  /// is decoded), so that nothing confirms a frame the audio does not start at.
  func refill(
    _ ring: SampleRing, from frame: Int64, orBackTo fallback: Int64, decoder: any AudioDecoder,
    for host: any RingFeederHost, landed: @escaping @Sendable (SeekLanding) -> Void
  ) {
    queue.async { [self] in
      let landing = SeekLanding(seeking: decoder, to: frame, orBackTo: fallback)
      let current = host.locked { () -> Bool in
        guard host.landedLocked(landing, ring: ring) else { return false }
        landed(landing)
        return true
      }
      guard current else { return }
      let generation = ring.reset(toFrame: landing.frame ?? fallback)
      guard landing.frame != nil else {
        _ = ring.push(UnsafeRawBufferPointer(start: nil, count: 0), generation: generation, endOfTrack: true)
        return host.locked { host.handOverLocked(ring) }
      }
      fill(ring, from: decoder, host: host)
    }
  }

  /// Decodes until the ring is full or the track ends, handing the audio over after the first chunks and at the
  /// end (decoding queue).
  private func fill(_ ring: SampleRing, from decoder: any AudioDecoder, host: any RingFeederHost) {
    queue.assertOnQueue()
    let width = ring.sampleBytes
    let scratch = UnsafeMutableRawBufferPointer.allocate(
      byteCount: Self.chunkFrames * ring.channels * width, alignment: 8)
    defer { scratch.deallocate() }
    // In the ring's format: every decoder of one ring has the same one.
    func decode(_ source: any AudioDecoder, _ frames: Int) throws(PlayerError) -> Int {
      width == 2
        ? try source.read(into: scratch.bindMemory(to: Int16.self), frames: frames)
        : try source.read(into: scratch.bindMemory(to: Float.self), frames: frames)
    }
    var wrote = false
    var chunks = 0
    var source = decoder
    let plan = host.locked { host.fillPlanLocked() }
    while true {
      let (generation, free, ended) = ring.fillState
      guard !ended, free > 0 else { break }
      // Decoding seconds ahead while corked would take the CPU from the start-up, or the seek, that waits for
      // the uncork: the uncork pumps, and the pump refills. Checked before each chunk: the fills a corked pump
      // asks for must not add two chunks each.
      if ring.availableFrames >= plan.corkedFrames, !host.locked({ host.isRunningLocked() }) { break }
      let want = min(free, Self.chunkFrames)
      var frames: Int
      var failed = false
      do {
        frames = try decode(source, want)
        let notices = source.takeNotices()
        let titles = frames > 0 ? source.takeTitleChanges() : []
        if !notices.isEmpty || !titles.isEmpty {
          host.locked { host.decodedLocked(notices: notices, titles: titles, ring: ring, decoder: source) }
        }
      } catch {
        host.locked { host.readFailedLocked(error, ring: ring) }
        frames = 0
        failed = true
      }
      if frames == 0, !failed,
        let (next, rewind) = host.locked({ host.trackEndedLocked(ring: ring, generation: generation) })
      {
        // Gapless: the next track's first frames go into the ring right behind this track's last.
        if rewind { _ = try? next.seek(toFrame: 0) }
        source = next
        frames = (try? decode(source, want)) ?? 0
      }
      let slice = UnsafeRawBufferPointer(rebasing: scratch[0..<(frames * ring.channels * width)])
      guard ring.push(slice, generation: generation, endOfTrack: frames == 0) else { break }
      wrote = true
      chunks += 1
      if frames == 0 { break }
      if plan.handsOverEarly, chunks == Self.handOverAfter {
        host.locked { host.handOverLocked(ring) }
        wrote = false
      }
    }
    // Also when nothing was written: a prefill that waits on a ring another fill completed is answered then.
    host.locked { wrote ? host.handOverLocked(ring) : host.fillEndedQuietlyLocked(ring) }
  }
}
