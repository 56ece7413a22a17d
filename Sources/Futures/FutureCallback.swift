/// One registered callback, tagged with the outcomes it wants.
///
/// Storing the user's closure together with a tag, instead of wrapping every `whenSuccess` body in an
/// `(Outcome) -> Void` closure, saves one allocation per observer: the closure the caller wrote is the
/// closure we keep.
@usableFromInline
enum FutureCallback<Value: Sendable, Failure: Error>: Sendable {
  case success(@Sendable (Value) -> Void)
  case failure(@Sendable (Failure) -> Void)
  case cancel(@Sendable () -> Void)
  case always(@Sendable (Outcome<Value, Failure>) -> Void)

  /// A callback that does nothing, stored over slots that have already run so their closures are released.
  @inlinable
  static var spent: FutureCallback { .cancel(spentCallbackBody) }

  /// Runs the callback if it wants this outcome.
  @inlinable
  func callAsFunction(_ outcome: Outcome<Value, Failure>) {
    switch self {
    case .success(let body):
      if case .success(let value) = outcome { body(value) }
    case .failure(let body):
      if case .failure(let error) = outcome { body(error) }
    case .cancel(let body):
      if case .cancelled = outcome { body() }
    case .always(let body):
      body(outcome)
    }
  }
}

/// A closure without a context, so `FutureCallback.spent` never allocates.
@usableFromInline
@Sendable func spentCallbackBody() {}
