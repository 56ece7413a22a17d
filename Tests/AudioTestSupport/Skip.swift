import Testing

/// A check that cannot run on this server: reported as skipped in the test summary, with the reason, never
/// printed and passed.
public enum Skip {
  /// Ends the running test as skipped (cancelled, in Swift Testing's terms) when `reason` is not nil; what the
  /// test checked before still counts. Not in a parameterized test: Swift Testing's console reports a cancelled
  /// test case as passed, so such a check goes in a test of its own with an `.enabled(if:)` trait.
  public static func when(_ reason: String?, sourceLocation: SourceLocation = #_sourceLocation) throws {
    guard let reason else { return }
    try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
  }
}
