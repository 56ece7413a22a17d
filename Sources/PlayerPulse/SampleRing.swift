import Futures
import PlayerCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Decoded audio waiting for the server: a fixed ring of interleaved samples (floats, or 16-bit integers for
/// 16-bit sources), filled by the decoding queue and emptied by the PulseAudio write callback.
///
/// Its storage is allocated once per stream, so the audio path never allocates. The lock is held only for a
/// `memcpy` on either side. Every seek or stop bumps the ``generation``; audio decoded for an older generation
/// is refused, so stale audio can never reach the server after a seek.
final class SampleRing: Sendable {
  private struct Storage: ~Copyable {
    /// The samples' base address as an integer: the lock then holds only plain values, which lets the
    /// compiler prove the region-based isolation of the callers' pointers (they are copied from, never kept).
    let address: UInt
    var readIndex = 0
    var count = 0
    var generation: UInt64 = 0
    /// The track frame of the sample at `readIndex`.
    var frame: Int64 = 0
    var endOfTrack = false
    /// Set by ``invalidate()``: nothing is accepted until the decoder has moved and called ``reset(toFrame:)``.
    var suspended = false
    /// Frames still to be read before the first frame of the next track, when one follows in this ring.
    var framesBeforeBoundary: Int?

    /// The mapping's length in bytes.
    let byteCount: Int

    var buffer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: address)! }

    deinit { munmap(UnsafeMutableRawPointer(bitPattern: address), byteCount) }
  }

  private let storage: Lock<Storage>
  /// Samples per frame.
  let channels: Int
  /// Capacity in samples.
  let capacity: Int
  /// Bytes per sample: 4 for floats, 2 for 16-bit integers.
  let sampleBytes: Int
  /// Bytes per frame, as the server takes them.
  var frameBytes: Int { channels * sampleBytes }

  /// Fails (nil) only when the system has no memory for the ring.
  init?(frames: Int, channels: Int, sampleBytes: Int = MemoryLayout<Float>.size) {
    self.channels = channels
    self.capacity = frames * channels
    self.sampleBytes = sampleBytes
    // Mapped rather than taken from malloc: a ring is hundreds of KB to a few MB and lives as long as one stream, and
    // malloc keeps freed blocks of that size in its per-thread arenas, so a player that went through a
    // thousand streams held tens of megabytes of dead rings. Unmapped, the memory goes back at once; the
    // pages come zeroed and are touched only as audio is decoded into them.
    let byteCount = capacity * sampleBytes
    guard let mapping = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      mapping != MAP_FAILED
    else { return nil }
    storage = Lock(Storage(address: UInt(bitPattern: mapping), byteCount: byteCount))
  }

  /// Empties the ring at once and refuses audio until ``reset(toFrame:)``: called when a seek or stop begins,
  /// so that neither buffered audio nor audio being decoded for the old position can be written afterwards.
  func invalidate() {
    storage.withLock { s in
      s.generation &+= 1
      s.readIndex = 0
      s.count = 0
      s.endOfTrack = false
      s.suspended = true
      s.framesBeforeBoundary = nil
    }
  }

  /// Empties the ring for a new position (the decoder is already there) and returns the new generation.
  func reset(toFrame frame: Int64) -> UInt64 {
    storage.withLock { s in
      s.suspended = false
      s.generation &+= 1
      s.readIndex = 0
      s.count = 0
      s.frame = frame
      s.endOfTrack = false
      s.framesBeforeBoundary = nil
      return s.generation
    }
  }

  /// Marks the end of the current track, so that the frames pushed from now on belong to the next track
  /// (gapless playback); `false` when `generation` is stale or a boundary is already marked.
  ///
  /// A track whose end was already queued (``push(_:generation:endOfTrack:)`` with `endOfTrack`) can still be
  /// continued, even once its last frames were all read: whether the server still holds enough of them is the
  /// caller's to judge.
  func markBoundary(generation: UInt64) -> Bool {
    storage.withLock { s in
      guard s.generation == generation, !s.suspended, s.framesBeforeBoundary == nil else { return false }
      s.endOfTrack = false
      s.framesBeforeBoundary = s.count / channels
      return true
    }
  }

  /// The current generation, free frames and whether the track's end has been queued.
  var fillState: (generation: UInt64, freeFrames: Int, endOfTrack: Bool) {
    storage.withLock { s in (s.generation, s.suspended ? 0 : (capacity - s.count) / channels, s.endOfTrack) }
  }

  /// Frames ready to be written.
  var availableFrames: Int { storage.withLock { $0.count / channels } }

  /// True when the ring is at most half full and more of the track is to come: the low-water mark at which
  /// decoding resumes. Refilling only from there, up to full, lets the decoder wake about once a second of
  /// audio instead of after every write the server asks for.
  var wantsRefill: Bool { storage.withLock { !$0.suspended && !$0.endOfTrack && $0.count * 2 <= capacity } }

  /// The track frame of the next sample to hand over: once drained, the frame where the audio ended.
  var frame: Int64 { storage.withLock { $0.frame } }

  /// True when the decoder reached the end and everything was handed to the server.
  var drained: Bool { storage.withLock { $0.endOfTrack && $0.count == 0 } }

  /// Appends decoded frames (samples of ``sampleBytes`` each) if `generation` is still current; returns false
  /// when they are stale.
  func push(_ samples: UnsafeRawBufferPointer, generation: UInt64, endOfTrack: Bool) -> Bool {
    let sourceAddress = UInt(bitPattern: samples.baseAddress)
    let sampleCount = samples.count / sampleBytes
    let width = sampleBytes
    return storage.withLock { s in
      let sourceBase = UnsafeRawPointer(bitPattern: sourceAddress)
      guard s.generation == generation, !s.suspended else { return false }
      var writeIndex = (s.readIndex + s.count) % capacity
      var remaining = min(sampleCount, capacity - s.count)
      var source = 0
      while remaining > 0 {
        let chunk = min(remaining, capacity - writeIndex)
        s.buffer.advanced(by: writeIndex * width).copyMemory(
          from: sourceBase!.advanced(by: source * width), byteCount: chunk * width)
        s.count += chunk
        source += chunk
        remaining -= chunk
        writeIndex = (writeIndex + chunk) % capacity
      }
      if endOfTrack { s.endOfTrack = true }
      return true
    }
  }

  /// Copies up to `maxFrames` frames into `destination` and returns how many frames, and where among them
  /// the next track begins when its first frame is one of them.
  func pop(into destination: UnsafeMutableRawPointer, maxFrames: Int) -> (frames: Int, boundary: Int?) {
    let targetAddress = UInt(bitPattern: destination)
    let width = sampleBytes
    return storage.withLock { s in
      let frames = min(maxFrames, s.count / channels)
      var remaining = frames * channels
      var target = UnsafeMutableRawPointer(bitPattern: targetAddress)!
      while remaining > 0 {
        let chunk = min(remaining, capacity - s.readIndex)
        target.copyMemory(from: s.buffer.advanced(by: s.readIndex * width), byteCount: chunk * width)
        target = target.advanced(by: chunk * width)
        s.readIndex = (s.readIndex + chunk) % capacity
        s.count -= chunk
        remaining -= chunk
      }
      guard let before = s.framesBeforeBoundary else {
        s.frame += Int64(frames)
        return (frames, nil)
      }
      guard before < frames else {
        s.framesBeforeBoundary = before - frames
        s.frame += Int64(frames)
        return (frames, nil)
      }
      s.framesBeforeBoundary = nil
      s.frame = Int64(frames - before)
      return (frames, before)
    }
  }
}
