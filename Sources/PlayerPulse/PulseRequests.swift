import CPulseAudio
import PlayerCore

/// The libpulse operations one output has in flight, so that each is finished, cancelled or failed exactly once.
///
/// libpulse calls an operation back through a ``PulseOperation`` trampoline (retained userdata), or, when the
/// connection or the stream goes, never: ``fail(with:where:)`` then fails and releases what will never come
/// back. Every method runs with the mainloop lock held (or on the mainloop thread).
final class PulseRequests {
  private var pending: [ObjectIdentifier: PulseOperation] = [:]
  private let loop: ThreadedMainloop
  private let connection: PulseConnection

  /// Requests on `connection`'s context, run by `loop`.
  init(loop: ThreadedMainloop, connection: PulseConnection) {
    self.loop = loop
    self.connection = connection
  }

  /// The error of an operation that needs a stream when none is open.
  static func noStream(_ name: String) -> PlayerError {
    .outputFailed(operation: name, detail: "no stream is open")
  }

  /// Starts an operation (lock held): `start` gets the userdata for a ``PulseOperation`` trampoline and returns
  /// libpulse's operation. When libpulse refuses it at once, `failure` gets the connection's last error and the
  /// result is nil; `failure` also runs when the stream or the connection goes before the server answers.
  @discardableResult
  func issue(
    _ name: String, start: (UnsafeMutableRawPointer) -> OpaquePointer?,
    completion: @escaping (Bool) -> Void, failure: @escaping (PlayerError) -> Void,
    volumeRead: ((pa_volume_t) -> Void)? = nil
  ) -> PulseOperation? {
    loop.assertLocked(function: #function)
    let operation = PulseOperation(name: name, completion: completion, failure: failure, volumeRead: volumeRead)
    operation.requests = self
    let userdata = Unmanaged.passRetained(operation).toOpaque()
    guard let handle = start(userdata) else {
      Unmanaged<PulseOperation>.fromOpaque(userdata).release()
      failure(.outputFailed(operation: name, detail: connection.lastError()))
      return nil
    }
    operation.handle = handle
    pending[ObjectIdentifier(operation)] = operation
    return operation
  }

  /// The server answered `operation` (mainloop thread): its completion runs unless it was cancelled first.
  func finished(_ operation: PulseOperation, success: Bool) {
    guard pending.removeValue(forKey: ObjectIdentifier(operation)) != nil else { return }
    if let handle = operation.handle { pa_operation_unref(handle) }
    operation.handle = nil
    operation.completion(success)
  }

  /// Cancels `operation` without running its completion or failure.
  func cancel(_ operation: PulseOperation) {
    guard pending.removeValue(forKey: ObjectIdentifier(operation)) != nil else { return }
    if let handle = operation.handle {
      pa_operation_cancel(handle)
      pa_operation_unref(handle)
    }
    operation.handle = nil
    Unmanaged.passUnretained(operation).release()
  }

  /// Cancels every operation that `matches` and fails it with `error`: libpulse will never call them back.
  func fail(with error: PlayerError, where matches: (PulseOperation) -> Bool = { _ in true }) {
    let doomed = pending.values.filter(matches)
    for operation in doomed {
      cancel(operation)
      operation.failure(error)
    }
  }
}
