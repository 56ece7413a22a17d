import Foundation
import Futures
import Synchronization

/// Records what reaches the null sink, by running `parec` on its monitor: the proof of what was heard.
///
/// Each chunk is stamped with `CLOCK_MONOTONIC` on arrival, the clock of splay's confirmations, so a test can
/// relate "the future resolved" to "the audio changed at the sink". On the truth sink (`PulseEnvironment.truthFile`)
/// the recording is what the sink's clock played instead, each chunk stamped when it played; `parec` still reads
/// the monitor there, so that the sink renders in the small blocks a recorded sink renders in.
public final class MonitorRecorder: Sendable {
  /// Interleaved stereo float samples at 44.1 kHz (the sandbox sink's format), with arrival times.
  public struct Recording: Sendable {
    /// Interleaved samples, two channels.
    public var samples: [Float]
    /// For each chunk: the index of its first frame and its arrival time in nanoseconds.
    public var arrivals: [(frame: Int, time: UInt64)]
    /// Frames per second.
    public let rate = 44_100

    /// Frames recorded.
    public var frameCount: Int { samples.count / 2 }

    /// The left channel.
    public var left: [Float] { stride(from: 0, to: samples.count, by: 2).map { samples[$0] } }

    /// The arrival time of the chunk that holds `frame`.
    public func time(ofFrame frame: Int) -> UInt64? {
      arrivals.last { $0.frame <= frame }?.time
    }

    /// The first frame at or after `start` whose level exceeds `threshold`.
    public func firstAudibleFrame(after start: Int = 0, threshold: Float = 0.01) -> Int? {
      var frame = start
      while frame < frameCount {
        if abs(samples[frame * 2]) > threshold || abs(samples[frame * 2 + 1]) > threshold { return frame }
        frame += 1
      }
      return nil
    }

    /// The first frame at or after `start` that begins `frames` of silence.
    public func firstSilentFrame(after start: Int, lasting frames: Int = 441, threshold: Float = 0.001) -> Int? {
      var run = 0
      var frame = start
      while frame < frameCount {
        if abs(samples[frame * 2]) <= threshold && abs(samples[frame * 2 + 1]) <= threshold {
          run += 1
          if run >= frames { return frame - frames + 1 }
        } else {
          run = 0
        }
        frame += 1
      }
      return nil
    }
  }

  /// parec, reading the monitor; nil where the truth sink's file is read alone.
  private let process: ChildProcess?
  private final class Captured: Sendable {
    let state = Lock<(samples: [Float], arrivals: [(frame: Int, time: UInt64)], pending: [UInt8])>(([], [], []))
  }
  private let captured = Captured()
  private let truth: TruthFileReader?

  /// Starts recording the sink's monitor; waits until audio (or silence) flows.
  ///
  /// `drivingTheSink: false` leaves a truth sink as nobody records it (rendering 2-second blocks) and reads its
  /// file alone; elsewhere the monitor's reader is the recording, and the flag changes nothing.
  public init(sink: String = PulseEnvironment.sink, drivingTheSink: Bool = true) throws {
    let parec = [
      "/usr/bin/parec", "--device=\(sink).monitor", "--format=float32le", "--rate=44100", "--channels=2",
      "--latency-msec=\(PulseEnvironment.recorderLatencyMilliseconds)", "--raw",
    ]
    if let path = PulseEnvironment.truthFile {
      truth = try TruthFileReader(path: path)
      guard drivingTheSink else {
        process = nil
        return
      }
      process = try ChildProcess(parec)
      // A plain null sink renders 2-second blocks until a low-latency client connects, and a stream started
      // before the block it rendered has played is not heard until then: wait until it renders ahead by little.
      let deadline = Self.now() + 3_000_000_000
      while truth?.playedUntil == nil || (PulseEnvironment.sinkLatency(of: sink) ?? .max) > 50_000,
        Self.now() < deadline
      {
        usleep(10_000)
      }
      return
    }
    truth = nil
    let child = try ChildProcess(parec, pipingStdout: true)
    process = child
    let data = self.captured
    child.stdoutPipe?.readabilityHandler = { handle in
      let chunk = handle.availableData
      guard !chunk.isEmpty else {
        handle.readabilityHandler = nil
        return
      }
      let now = MonitorRecorder.now()
      data.state.withLock { d in
        d.pending.append(contentsOf: chunk)
        let usable = d.pending.count / 8 * 8
        guard usable > 0 else { return }
        d.arrivals.append((d.samples.count / 2, now))
        d.pending.withUnsafeBytes { raw in
          let floats = raw.bindMemory(to: Float.self)
          d.samples.append(contentsOf: floats[0..<(usable / 4)])
        }
        d.pending.removeFirst(usable)
      }
    }
    let deadline = Self.now() + 3_000_000_000
    while captured.state.withLock({ $0.samples.count }) < 4410 * 2, Self.now() < deadline { usleep(1000) }
  }

  deinit {
    truth?.stop()
    if let process, process.isRunning { kill(process.pid, SIGKILL) }
  }

  /// What was heard so far; the recording goes on.
  public func snapshot() -> Recording {
    if let truth { return truth.recording() }
    return captured.state.withLock { Recording(samples: $0.samples, arrivals: $0.arrivals) }
  }

  /// Stops recording and returns what was heard.
  public func stop() -> Recording {
    if let truth {
      // What played until 50 ms from now, once the sink has written it (after its block, if it renders 2 s).
      let wanted = Self.now() + 50_000_000
      let patience = Self.now() + 4_500_000_000
      while (truth.playedUntil ?? 0) < wanted, Self.now() < patience { usleep(2_000) }
      truth.stop()
      if let process, process.isRunning { kill(process.pid, SIGKILL) }
      return truth.recording()
    }
    // Wait for a chunk that arrived 50 ms after now: what the sink played until now is then recorded, however
    // late a busy machine ran parec (a fixed 50 ms sleep lost the last tone of a file under load). The monitor
    // sends silence while nothing plays, so chunks keep coming. `waitUntilExit` spins a run loop that a test's
    // cooperative thread does not have, so poll instead.
    let wanted = Self.now() + 50_000_000
    let patience = Self.now() + 3_000_000_000
    while captured.state.withLock({ $0.arrivals.last?.time ?? 0 }) < wanted, Self.now() < patience { usleep(2_000) }
    // SIGKILL: parec inherits the signal mask of the thread that spawned it, and Dispatch's and Swift
    // concurrency's threads block SIGTERM, so `terminate()` left every recorder running (74 after 100 model
    // sequences, each holding the sink's monitor).
    if let process, process.isRunning { kill(process.pid, SIGKILL) }
    let deadline = Self.now() + 2_000_000_000
    while process?.isRunning == true, Self.now() < deadline { usleep(2_000) }
    usleep(20_000)
    return captured.state.withLock { Recording(samples: $0.samples, arrivals: $0.arrivals) }
  }

  /// `CLOCK_MONOTONIC` in nanoseconds.
  public static func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }
}
