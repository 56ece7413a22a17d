import CPulseAudio
import Futures
import PlayerCore

/// A record stream of a sink's monitor at the sink's own rate, keeping the first channel of the last seconds
/// heard: what the sink played, for an audio check to look back at. Holes the server reports become silence of
/// their length, so that the frames stay in step with the sink's.
public final class MonitorTap: @unchecked Sendable {
  /// Frames per second.
  public let rate: Int
  private let channels: Int
  private let keeping: Int
  private let loop: ThreadedMainloop
  /// The probe whose connection records: kept alive while the tap is.
  private let probe: PulseProbe
  // Guarded by the mainloop lock.
  private var stream: OpaquePointer?
  private var samples: [Float] = []
  private var dropped = 0
  private var pending: [UInt8] = []
  private var connected: ((Result<Void, PlayerError>) -> Void)?
  private var failed: String?

  init(probe: PulseProbe, rate: Int, channels: Int, keeping seconds: Double) {
    self.probe = probe
    loop = probe.loop
    self.rate = rate
    self.channels = max(1, channels)
    keeping = Int(seconds * Double(rate))
  }

  deinit {
    stop()
  }

  /// Connects a record stream to `source` (lock held); `done` runs once it records or failed.
  func connect(_ context: OpaquePointer, source: String, _ done: @escaping (Result<Void, PlayerError>) -> Void) {
    var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(rate), channels: UInt8(channels))
    guard let made = pa_stream_new(context, "splay audio check", &spec, nil) else {
      return done(.failure(.outputFailed(operation: "record", detail: "cannot create a record stream")))
    }
    stream = made
    connected = done
    let me = Unmanaged.passUnretained(self).toOpaque()
    pa_stream_set_state_callback(
      made, { _, userdata in Unmanaged<MonitorTap>.fromOpaque(userdata!).takeUnretainedValue().stateChanged() }, me)
    pa_stream_set_read_callback(
      made, { _, _, userdata in Unmanaged<MonitorTap>.fromOpaque(userdata!).takeUnretainedValue().readable() }, me)
    // 20 ms fragments: the audio reaches the check soon after the sink played it, and PipeWire's pulse server
    // garbles smaller captures (frames lost and repeated in one block of a few hundred).
    let fragment = UInt32(rate / 50 * channels * 4)
    var attributes = pa_buffer_attr(
      maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max, fragsize: fragment)
    if pa_stream_connect_record(made, source, &attributes, PA_STREAM_ADJUST_LATENCY) < 0 {
      finishConnect(.failure(.outputFailed(operation: "record", detail: "cannot record \(source)")))
    }
  }

  private func finishConnect(_ result: Result<Void, PlayerError>) {
    let done = connected
    connected = nil
    done?(result)
  }

  private func stateChanged() {
    guard let stream else { return }
    switch pa_stream_get_state(stream) {
    case PA_STREAM_READY: finishConnect(.success(()))
    case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
      failed = "the record stream of the sink's monitor ended"
      finishConnect(.failure(.outputFailed(operation: "record", detail: "the record stream failed")))
    default: break
    }
  }

  /// Audio arrived (mainloop thread): keeps its first channel.
  private func readable() {
    guard let stream else { return }
    var data: UnsafeRawPointer?
    var bytes = 0
    while pa_stream_peek(stream, &data, &bytes) == 0, bytes > 0 {
      if let data {
        pending.append(contentsOf: UnsafeRawBufferPointer(start: data, count: bytes))
      } else {
        // A hole: silence of its length keeps the frames in step.
        pending.append(contentsOf: repeatElement(0, count: bytes))
      }
      pa_stream_drop(stream)
    }
    let frameBytes = channels * 4
    let frames = pending.count / frameBytes
    guard frames > 0 else { return }
    pending.withUnsafeBytes { raw in
      for frame in 0..<frames {
        samples.append(raw.loadUnaligned(fromByteOffset: frame * frameBytes, as: Float.self))
      }
    }
    pending.removeFirst(frames * frameBytes)
    if samples.count > keeping + rate {
      let excess = samples.count - keeping
      samples.removeFirst(excess)
      dropped += excess
    }
  }

  /// Every frame recorded so far, counting those no longer kept.
  public var framesRecorded: Int { loop.locked { dropped + samples.count } }

  /// The first channel of what is kept, oldest first.
  public var recording: [Float] { loop.locked { samples } }

  /// Whether frames were recorded that are no longer kept.
  public var trimmed: Bool { loop.locked { dropped > 0 } }

  /// Why the recording stopped, when it stopped (the server went, the sink was removed).
  public var failure: String? { loop.locked { failed } }

  /// Stops recording.
  public func stop() {
    // A tap whose stream failed while connecting may go on the mainloop thread, with its last reference.
    loop.lockedFromAnyThread {
      guard let stream else { return }
      pa_stream_set_state_callback(stream, nil, nil)
      pa_stream_set_read_callback(stream, nil, nil)
      pa_stream_disconnect(stream)
      pa_stream_unref(stream)
      self.stream = nil
    }
  }
}
