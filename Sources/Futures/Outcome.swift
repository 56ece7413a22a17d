/// How a ``Future`` settled: with a value, with an error, or cancelled.
///
/// A future settles exactly once, so its outcome never changes after it is first observed.
/// `cancelled` is a third state rather than an error so that every `Failure` type, including `Never`,
/// can express "nobody wants this any more" without inventing a case for it.
///
/// ```swift
/// switch await future.settled {
/// case .success(let state): show(state)
/// case .failure(let error): report(error)
/// case .cancelled: break
/// }
/// ```
public enum Outcome<Value, Failure: Error> {
  /// The future produced a value.
  case success(Value)
  /// The future failed with an error.
  case failure(Failure)
  /// The future was cancelled before it produced a value or an error.
  case cancelled
}

extension Outcome: Sendable where Value: Sendable {}

extension Outcome: Equatable where Value: Equatable, Failure: Equatable {}

extension Outcome: Hashable where Value: Hashable, Failure: Hashable {}

extension Outcome {
  /// Creates the outcome that corresponds to a `Result`: `.success` or `.failure`.
  public init(_ result: Result<Value, Failure>) {
    switch result {
    case .success(let value): self = .success(value)
    case .failure(let error): self = .failure(error)
    }
  }

  /// The value when the outcome is `.success`, otherwise `nil`.
  public var value: Value? {
    if case .success(let value) = self { return value }
    return nil
  }

  /// The error when the outcome is `.failure`, otherwise `nil`.
  public var error: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }

  /// Whether the outcome is `.cancelled`.
  public var isCancelled: Bool {
    if case .cancelled = self { return true }
    return false
  }

  /// The outcome as a `Result`, or `nil` when it is `.cancelled` (a `Result` has no way to say that).
  public var result: Result<Value, Failure>? {
    switch self {
    case .success(let value): return .success(value)
    case .failure(let error): return .failure(error)
    case .cancelled: return nil
    }
  }

  /// Transforms the value of a `.success` outcome and passes the other outcomes through.
  public func map<NewValue>(_ transform: (Value) throws(Failure) -> NewValue) -> Outcome<NewValue, Failure> {
    switch self {
    case .success(let value):
      do throws(Failure) {
        return .success(try transform(value))
      } catch {
        return .failure(error)
      }
    case .failure(let error): return .failure(error)
    case .cancelled: return .cancelled
    }
  }
}

extension Outcome where Failure: CancellableFailure {
  /// Returns the value, or throws the error; a cancelled outcome throws `Failure.cancelled`.
  public func get() throws(Failure) -> Value {
    switch self {
    case .success(let value): return value
    case .failure(let error): throw error
    case .cancelled: throw Failure.cancelled
    }
  }
}
