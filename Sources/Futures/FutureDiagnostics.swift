#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reports about futures that were misused, sent to a replaceable hook.
///
/// A future that can never succeed or fail is settled as cancelled (so nothing waits forever) and reported
/// with the place it was created: one whose ``Future/Resolver`` was released while it was pending (a code path
/// forgot to settle it), and one made by `flatMap` or `flatMapError` whose closure returned that very future
/// (it would wait on itself forever, as Promises/A+ 2.3.1 forbids).
///
/// ```swift
/// // In tests, turn the report into a failure:
/// FutureDiagnostics.unresolvedHook = { report in Issue.record("\(report)") }
/// ```
public enum FutureDiagnostics {
  /// A future that could never settle, and was cancelled for it.
  public struct UnresolvedFuture: Sendable, Hashable, CustomStringConvertible {
    /// Why the future could never settle.
    public enum Reason: Sendable, Hashable {
      /// Its resolver was released while it was pending.
      case resolverReleased
      /// The closure of the `flatMap` or `flatMapError` that made it returned the future itself.
      case followedItself
    }

    /// The `#fileID` of the call that created the future.
    public let fileID: String
    /// The line of the call that created the future.
    public let line: Int
    /// Why it could never settle.
    public let reason: Reason

    /// Creates a report.
    public init(fileID: String, line: Int, reason: Reason = .resolverReleased) {
      self.fileID = fileID
      self.line = line
      self.reason = reason
    }

    /// A one-line description naming the creation site.
    public var description: String {
      switch reason {
      case .resolverReleased:
        "the future created at \(fileID):\(line) was never settled: its Resolver was released, so it was cancelled"
      case .followedItself:
        "the future created at \(fileID):\(line) was to settle like itself (its closure returned it), so it was cancelled"
      }
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

  /// Receives one report per future that could never settle: on the thread that released its resolver, or that
  /// ran the closure which returned the future itself.
  ///
  /// Replace it to log through the application's logger or to fail tests. It is called after the future has
  /// settled as cancelled, and never while a library lock is held.
  public static var unresolvedHook: @Sendable (UnresolvedFuture) -> Void {
    get { hook.withLock { $0 } }
    set { hook.withLock { $0 = newValue } }
  }

  static func reportUnresolved(fileID: String, line: Int, reason: UnresolvedFuture.Reason = .resolverReleased) {
    let report = unresolvedHook
    report(UnresolvedFuture(fileID: fileID, line: line, reason: reason))
  }
}
