import ArgumentParser

/// `--report tap`, `--report junit`, `--report tap=FILE`, `--report junit=FILE`: each line of a script as a
/// test case, in the format CI reads, on stdout or in FILE.
struct ReportOption: ExpressibleByArgument, Equatable {
  /// The two formats.
  enum Format: String, CaseIterable {
    case tap, junit
  }

  var format: Format
  /// Where the report goes; nil for stdout, where it takes the place of the states.
  var file: String?

  init?(argument: String) {
    let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
    guard let format = Format(rawValue: String(parts[0]).lowercased()) else { return nil }
    self.format = format
    if parts.count == 2 {
      guard !parts[1].isEmpty else { return nil }
      file = String(parts[1])
    }
  }

  static var allValueStrings: [String] { ["tap", "junit", "tap=FILE", "junit=FILE"] }
}
