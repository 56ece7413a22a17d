/// The results of `splay check`: each scenario against each file, as a line per check, a summary, TAP and
/// JUnit XML (one suite per file, one case per scenario).
public struct CheckReport: Sendable {
  /// One scenario run against one file.
  public struct Check: Sendable, Equatable {
    /// The file checked.
    public var file: String
    /// The scenario's name.
    public var scenario: String
    /// Why it failed (`SCENARIO:LINE: message`), or nil when it passed.
    public var failure: String?
    /// The wall time it took, in seconds.
    public var seconds: Double
    /// Why lines of it could not be judged (an audio check on a resampled sink), when they could not: a check
    /// that passed with such lines is not judged, never passed.
    public var notJudged: String?

    /// A check of `scenario` against `file`.
    public init(file: String, scenario: String, failure: String?, seconds: Double, notJudged: String? = nil) {
      self.file = file
      self.scenario = scenario
      self.failure = failure
      self.seconds = seconds
      self.notJudged = notJudged
    }
  }

  /// The checks in the order they ran.
  public private(set) var checks: [Check] = []

  /// An empty report.
  public init() {}

  /// Takes a check.
  public mutating func record(_ check: Check) {
    checks.append(check)
  }

  /// The failed checks.
  public var failures: Int { checks.filter { $0.failure != nil }.count }

  /// The checks that did not fail but could not be judged whole.
  public var notJudged: Int { checks.filter { $0.failure == nil && $0.notJudged != nil }.count }

  /// One human line: `ok    seeks          FILE (1.234 s)`, or `FAIL  …: why`.
  public static func line(_ check: Check) -> String {
    let name = check.scenario + String(repeating: " ", count: max(0, 13 - check.scenario.count))
    let time = "(\(formatted(check.seconds)) s)"
    guard let failure = check.failure else {
      guard let reason = check.notJudged else { return "ok    \(name) \(check.file) \(time)" }
      return "skip  \(name) \(check.file) \(time): not judged: \(reason)"
    }
    return "FAIL  \(name) \(check.file) \(time): \(failure)"
  }

  /// The last line: how many checks, passed and failed.
  public var summary: String {
    let skipped = notJudged == 0 ? "" : ", \(notJudged) not judged"
    return "\(checks.count) checks: \(checks.count - failures - notJudged) passed, \(failures) failed\(skipped)"
  }

  /// The whole report as TAP version 13.
  public var tap: String {
    var text = "TAP version 13\n1..\(checks.count)\n"
    for (index, check) in checks.enumerated() {
      let name = ReportText.tapName("\(check.file): \(check.scenario)")
      if let failure = check.failure {
        text += "not ok \(index + 1) - \(name)\n  ---\n  message: \(ReportText.yamlQuoted(failure))\n  ...\n"
      } else if let reason = check.notJudged {
        text += "ok \(index + 1) - \(name) # SKIP not judged: \(ReportText.tapName(reason))\n"
      } else {
        text += "ok \(index + 1) - \(name)\n"
      }
    }
    return text
  }

  /// The whole report as JUnit XML: a suite per file, a case per scenario.
  public var junit: String {
    var files: [String] = []
    for check in checks where !files.contains(check.file) { files.append(check.file) }
    let time = formatted(checks.reduce(0) { $0 + $1.seconds })
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    xml += "<testsuites name=\"splay check\" tests=\"\(checks.count)\" failures=\"\(failures)\" errors=\"0\" "
    xml += "skipped=\"\(notJudged)\" "
    xml += "time=\"\(time)\">\n"
    for file in files {
      let cases = checks.filter { $0.file == file }
      let suite = ReportText.xmlEscaped(file)
      let failed = cases.filter { $0.failure != nil }.count
      let seconds = formatted(cases.reduce(0) { $0 + $1.seconds })
      xml += "  <testsuite name=\"\(suite)\" tests=\"\(cases.count)\" failures=\"\(failed)\" errors=\"0\" "
      xml += "time=\"\(seconds)\">\n"
      for check in cases {
        let head = "<testcase name=\"\(ReportText.xmlEscaped(check.scenario))\" classname=\"\(suite)\""
        let time = "time=\"\(formatted(check.seconds))\""
        if let failure = check.failure {
          let message = ReportText.xmlEscaped(failure)
          xml += "    \(head) \(time)><failure message=\"\(message)\">\(message)</failure></testcase>\n"
        } else if let reason = check.notJudged {
          let message = ReportText.xmlEscaped("not judged: \(reason)")
          xml += "    \(head) \(time)><skipped message=\"\(message)\"/></testcase>\n"
        } else {
          xml += "    \(head) \(time)/>\n"
        }
      }
      xml += "  </testsuite>\n"
    }
    return xml + "</testsuites>\n"
  }

  private static func formatted(_ seconds: Double) -> String {
    String((seconds * 1000).rounded() / 1000)
  }

  private func formatted(_ seconds: Double) -> String { Self.formatted(seconds) }
}
