import Testing

/// A check that cannot run on this server: reported as skipped in the test summary, with the reason, never
/// printed and passed.
public enum Skip {
  /// Ends the running test as skipped (cancelled, in Swift Testing's terms) when `reason` is not nil; what the
  /// test checked before still counts.
  public static func when(_ reason: String?, sourceLocation: SourceLocation = #_sourceLocation) throws {
    guard let reason else { return }
    try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
  }
}
