import Foundation

/// The sanitizer the tests run under (`SPLAY_SANITIZER`, set by `make tsan` and `make asan`), or nil.
///
/// Long random runs are shorter under one: what a sanitizer finds is a race or a leak on a path, which a
/// tenth of the run walks as well, while the full run's length is `make test`'s to check.
public enum Sanitizer {
  /// `thread` or `address`; nil in a plain build.
  public static let name: String? = ProcessInfo.processInfo.environment["SPLAY_SANITIZER"]

  /// `plain`, or a tenth of it (at least one) under a sanitizer.
  public static func scaled(_ plain: Int) -> Int {
    name == nil ? plain : max(1, plain / 10)
  }
}
