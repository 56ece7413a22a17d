/// An error type that can say "the operation was cancelled".
///
/// A ``Future`` settles as ``Outcome/cancelled`` rather than with an error when it is cancelled, because
/// most failure types have no case for it. The `async` bridge has to turn that third outcome into
/// something a typed `throws(Failure)` can carry: when `Failure` conforms to this protocol,
/// `Future.value` throws ``cancelled`` for a cancelled future, so callers can write one `catch`.
///
/// ```swift
/// enum PlayerError: CancellableFailure {
///   case noDevice, seekFailed, cancelled
/// }
///
/// do {
///   let state = try await controller.send(.pause).value   // throws(PlayerError)
/// } catch .cancelled {
///   // the command was cancelled, or the awaiting task was
/// } catch {
///   report(error)
/// }
/// ```
///
/// Failure types that do not conform can still await a future without losing anything through
/// ``Future/settled``, which returns the full ``Outcome``.
public protocol CancellableFailure: Error {
  /// The error that stands for a cancelled future.
  static var cancelled: Self { get }
}
