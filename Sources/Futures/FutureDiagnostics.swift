#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reports about futures that were misused, sent to a replaceable hook.
///
/// A future whose ``Future/Resolver`` is released while the future is still pending can never succeed or
/// fail; the library settles it as cancelled (so nothing waits forever) and reports where it was created,
/// because it almost always means a code path forgot to settle it.
///
/// ```swift
/// // In tests, turn the report into a failure:
/// FutureDiagnostics.unresolvedHook = { report in Issue.record("\(report)") }
/// ```
public enum FutureDiagnostics {
  /// A future that was abandoned by its producer: its resolver was released while it was pending.
  public struct UnresolvedFuture: Sendable, Hashable, CustomStringConvertible {
    /// The `#fileID` of the call that created the future.
    public let fileID: String
    /// The line of the call that created the future.
    public let line: Int

    /// Creates a report.
    public init(fileID: String, line: Int) {
      self.fileID = fileID
      self.line = line
    }

    /// A one-line description naming the creation site.
    public var description: String {
      "the future created at \(fileID):\(line) was never settled: its Resolver was released, so it was cancelled"
    }
  }

  /// The default hook: writes the report to standard error.
  public static let printToStandardError: @Sendable (UnresolvedFuture) -> Void = { report in
    let line = "Futures: \(report)\n"
    var bytes = Array(line.utf8)
    bytes.withUnsafeMutableBytes { buffer in
      _ = write(2, buffer.baseAddress, buffer.count)
    }
  }

  private static let hook = Lock<@Sendable (UnresolvedFuture) -> Void>(printToStandardError)

  /// Receives one report per future abandoned while pending, on the thread that released its resolver.
  ///
  /// Replace it to log through the application's logger or to fail tests. It is called after the future has
  /// settled as cancelled, and never while a library lock is held.
  public static var unresolvedHook: @Sendable (UnresolvedFuture) -> Void {
    get { hook.withLock { $0 } }
    set { hook.withLock { $0 = newValue } }
  }

  static func reportUnresolved(fileID: String, line: Int) {
    let report = unresolvedHook
    report(UnresolvedFuture(fileID: fileID, line: line))
  }
}
