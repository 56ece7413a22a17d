import CPulseAudio
import PlayerCore

/// One libpulse operation in flight: what to do when the server answers, and how to fail it when the
/// connection goes away (libpulse then cancels operations without calling them back).
///
/// Passed to libpulse as retained userdata; ``PulseRequests`` also holds it, so that a lost connection can
/// fail and release every operation that will never be called back.
final class PulseOperation {
  let name: String
  var handle: OpaquePointer?
  /// Runs on the mainloop thread with the lock held, with the server's `success` flag.
  let completion: (Bool) -> Void
  /// Runs when the operation can never complete.
  let failure: (PlayerError) -> Void
  /// The table that issued it, which its answer is reported to.
  weak var requests: PulseRequests?
  /// For a sink-input query: receives the sink input's average volume before `completion` runs.
  let volumeRead: ((pa_volume_t) -> Void)?

  init(
    name: String, completion: @escaping (Bool) -> Void, failure: @escaping (PlayerError) -> Void,
    volumeRead: ((pa_volume_t) -> Void)? = nil
  ) {
    self.name = name
    self.completion = completion
    self.failure = failure
    self.volumeRead = volumeRead
  }

  /// The trampoline for a query of one sink input (`pa_sink_input_info_cb_t`): the entry, then the end of the
  /// list, which completes the operation (successfully unless the server reported an error).
  static let sinkInputCallback: pa_sink_input_info_cb_t = { _, info, eol, userdata in
    guard let userdata else { return }
    if let info {
      var volume = info.pointee.volume
      Unmanaged<PulseOperation>.fromOpaque(userdata).takeUnretainedValue().volumeRead?(pa_cvolume_avg(&volume))
    } else {
      PulseOperation.finish(userdata, success: eol > 0)
    }
  }

  /// The trampoline for stream operations (`pa_stream_success_cb_t`).
  static let streamCallback: pa_stream_success_cb_t = { _, success, userdata in
    PulseOperation.finish(userdata, success: success != 0)
  }

  /// The trampoline for context operations (`pa_context_success_cb_t`).
  static let contextCallback: pa_context_success_cb_t = { _, success, userdata in
    PulseOperation.finish(userdata, success: success != 0)
  }

  private static func finish(_ userdata: UnsafeMutableRawPointer?, success: Bool) {
    guard let userdata else { return }
    let operation = Unmanaged<PulseOperation>.fromOpaque(userdata).takeRetainedValue()
    operation.requests?.finished(operation, success: success)
  }
}
