import Foundation
import Futures

/// Reads what the truth sink played (scripts/pulse-sandbox loads it on pulse-plain when it can): the file its
/// clock writes, s16le stereo at 44.1 kHz, rewinds honoured, each block once the sink's clock has played it.
///
/// The file maps linearly onto the sink's clock (`CLOCK_MONOTONIC`): byte `b` played at `origin + b / rate`,
/// for as long as the sink is loaded. The origin is not written anywhere, so it is measured: a read that ends
/// at byte `b` at time `t` proves `origin <= t - b / rate`, with equality when the sink wrote just before the
/// read. The smallest bound seen, polled every millisecond while the sink writes every few, is within a
/// fraction of a millisecond of it (0.05–0.3 ms measured).
final class TruthFileReader: Sendable {
  private static let bytesPerFrame = 4
  private static let rate = 44_100

  private struct State {
    var samples: [Float] = []
    var pending: [UInt8] = []
    /// Bytes of the file read so far, from its start.
    var bytesRead: Int
    /// The smallest bound on the time the file's first byte played, in nanoseconds.
    var origin: UInt64 = .max
    var stopped = false
  }

  private let descriptor: Int32
  /// The file's frame that is the recording's first.
  private let firstFrame: Int
  private let state: Lock<State>

  /// Starts reading `path` from its current end, polling on a thread of its own.
  init(path: String) throws {
    descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: path]) }
    let end = Int(lseek(descriptor, 0, SEEK_END))
    let start = end / Self.bytesPerFrame * Self.bytesPerFrame
    lseek(descriptor, off_t(start), SEEK_SET)
    firstFrame = start / Self.bytesPerFrame
    state = Lock(State(bytesRead: start))
    Thread.detachNewThread { [self] in
      while !state.withLock({ $0.stopped }) {
        poll()
        usleep(1_000)
      }
      close(descriptor)
    }
  }

  /// Reads what the sink wrote since the last poll and tightens the origin.
  private func poll() {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var fresh: [UInt8] = []
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      fresh.append(contentsOf: chunk[0..<count])
    }
    // Taken after the read: the bytes read had all played by then, so the bound holds.
    let now = MonitorRecorder.now()
    state.withLock { s in
      s.bytesRead += fresh.count
      // Only a read that found new bytes bounds it closely: those were written since the last poll, a
      // millisecond ago, when the sink's clock said they had played. A read of nothing may come two seconds
      // after the last write (a sink nobody records writes once per block).
      let played = UInt64(Double(s.bytesRead) / Double(Self.bytesPerFrame * Self.rate) * 1e9)
      if !fresh.isEmpty, now >= played { s.origin = min(s.origin, now - played) }
      s.pending.append(contentsOf: fresh)
      let usable = s.pending.count / Self.bytesPerFrame * Self.bytesPerFrame
      guard usable > 0 else { return }
      s.pending.withUnsafeBytes { raw in
        for index in stride(from: 0, to: usable, by: 2) {
          let sample = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: Int16.self))
          s.samples.append(Float(sample) / 32_768)
        }
      }
      s.pending.removeFirst(usable)
    }
  }

  /// The time, on `CLOCK_MONOTONIC`, up to which the file holds what was played; nil before the origin is known.
  var playedUntil: UInt64? {
    state.withLock { s in
      guard s.origin != .max else { return nil }
      return s.origin + UInt64(Double(firstFrame + s.samples.count / 2) / Double(Self.rate) * 1e9)
    }
  }

  /// What was played so far, as a monitor's recording: each 64-frame chunk "arrives" when its last frame played.
  func recording() -> MonitorRecorder.Recording {
    state.withLock { s in
      let frames = s.samples.count / 2
      var arrivals: [(frame: Int, time: UInt64)] = []
      if s.origin != .max {
        arrivals.reserveCapacity(frames / 64 + 1)
        for frame in stride(from: 0, to: frames, by: 64) {
          let end = firstFrame + min(frame + 64, frames)
          arrivals.append((frame, s.origin + UInt64(Double(end) / Double(Self.rate) * 1e9)))
        }
      }
      return MonitorRecorder.Recording(samples: s.samples, arrivals: arrivals)
    }
  }

  /// Stops polling; the descriptor is closed by the polling thread.
  func stop() {
    state.withLock { $0.stopped = true }
  }
}
