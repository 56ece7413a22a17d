import PlayerCore

/// A script's lines as test cases, for CI: TAP (version 13) as the lines run, or JUnit XML once the script has
/// run. Each line is a case named `LINE: TEXT`; the lines after a failure did not run and are skipped.
public struct ScriptReport: Sendable {
  /// The script.
  public let script: PlaybackScript
  /// How each line that ran went, in order.
  public private(set) var outcomes: [ScriptStepOutcome] = []
  /// A failure of the run that no line's outcome holds (a known failure that did not happen, a log that goes
  /// on after the run): reported as one more case, so that a report is never green while the run failed.
  public var runFailure: String?

  /// A report of `script`, with nothing run yet.
  public init(script: PlaybackScript) {
    self.script = script
  }

  /// Takes how a line went.
  public mutating func record(_ outcome: ScriptStepOutcome) {
    outcomes.append(outcome)
  }

  // MARK: - TAP

  /// The TAP version line, written before the first line runs; the plan comes last (``tapRest``), once it is
  /// known whether the run failed besides its lines.
  public var tapHeader: String { "TAP version 13\n" }

  /// The TAP line of `outcome`, the `number`th case (from 1), with the failure as a YAML block; a known failure
  /// (`expect-failure`) is marked TODO, as TAP marks a failure that is expected.
  public func tapLine(_ outcome: ScriptStepOutcome, number: Int) -> String {
    let name = Self.tapName(outcome.step)
    guard let failure = outcome.failure else {
      let skip = outcome.notJudged.map { " # SKIP not judged: \(ReportText.tapName($0))" } ?? ""
      return "ok \(number) - \(name)\(skip)\n"
    }
    let known = script.expectedFailure.flatMap { $0.matches(failure) ? " # TODO known failure (line \($0.line))" : nil }
    return "not ok \(number) - \(name)\(known ?? "")\n  ---\n  message: \(ReportText.yamlQuoted(failure))\n"
      + "  line: \(outcome.step.line)\n  ...\n"
  }

  /// The TAP lines of the cases that did not run, after those recorded, the run's own failure, and the plan.
  public var tapRest: String {
    var text = ""
    if let stop = outcomes.last(where: { $0.failure != nil }) {
      text = script.steps.dropFirst(outcomes.count).enumerated().map { offset, step in
        "ok \(outcomes.count + offset + 1) - \(Self.tapName(step)) # SKIP not run: \(Self.lineName(stop.step)) failed\n"
      }.joined()
    }
    var count = script.steps.count
    if let runFailure {
      count += 1
      text += "not ok \(count) - \(ReportText.tapName(script.name)): the run\n  ---\n"
      text += "  message: \(ReportText.yamlQuoted(runFailure))\n  ...\n"
    }
    return text + "1..\(count)\n"
  }

  // MARK: - JUnit

  /// The JUnit XML of the whole run: one suite, the script; one case per line.
  public var junit: String {
    let known = outcomes.filter { outcome in
      outcome.failure.map { failure in script.expectedFailure?.matches(failure) == true } ?? false
    }.count
    let failures = outcomes.filter { $0.failure != nil }.count - known + (runFailure == nil ? 0 : 1)
    let notJudged = outcomes.filter { $0.failure == nil && $0.notJudged != nil }.count
    let skipped = script.steps.count - outcomes.count + known + notJudged
    let time = outcomes.reduce(0) { $0 + $1.seconds }
    let suite = ReportText.xmlEscaped(script.name)
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    let tests = script.steps.count + (runFailure == nil ? 0 : 1)
    let counts = "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\""
    xml += "<testsuites name=\"splay run\" \(counts) time=\"\(seconds(time))\">\n"
    xml += "  <testsuite name=\"\(suite)\" \(counts) time=\"\(seconds(time))\">\n"
    let stop = outcomes.last { $0.failure != nil }
    for (index, step) in script.steps.enumerated() {
      let name = "name=\"\(ReportText.xmlEscaped(Self.caseName(step)))\" classname=\"\(suite)\""
      guard index < outcomes.count else {
        let reason = stop.map { "not run: \(Self.lineName($0.step)) failed" } ?? "not run"
        xml += "    <testcase \(name) time=\"0\"><skipped message=\"\(ReportText.xmlEscaped(reason))\"/></testcase>\n"
        continue
      }
      let outcome = outcomes[index]
      guard let failure = outcome.failure else {
        if let reason = outcome.notJudged {
          let message = ReportText.xmlEscaped("not judged: \(reason)")
          xml +=
            "    <testcase \(name) time=\"\(seconds(outcome.seconds))\"><skipped message=\"\(message)\"/></testcase>\n"
          continue
        }
        xml += "    <testcase \(name) time=\"\(seconds(outcome.seconds))\"/>\n"
        continue
      }
      let message = ReportText.xmlEscaped("\(step.place(in: script)): \(failure)")
      if let known = script.expectedFailure, known.matches(failure) {
        let reason = ReportText.xmlEscaped("known failure (expect-failure, line \(known.line)): \(failure)")
        xml +=
          "    <testcase \(name) time=\"\(seconds(outcome.seconds))\"><skipped message=\"\(reason)\"/></testcase>\n"
        continue
      }
      xml += "    <testcase \(name) time=\"\(seconds(outcome.seconds))\">"
      xml += "<failure message=\"\(message)\">\(message)</failure></testcase>\n"
    }
    if let runFailure {
      let message = ReportText.xmlEscaped(runFailure)
      xml += "    <testcase name=\"the run\" classname=\"\(suite)\" time=\"0\">"
      xml += "<failure message=\"\(message)\">\(message)</failure></testcase>\n"
    }
    xml += "  </testsuite>\n</testsuites>\n"
    return xml
  }

  // MARK: - Text

  /// `LINE: TEXT`, the line as written.
  static func caseName(_ step: PlaybackScript.Step) -> String {
    "\(step.file.map { "\($0):" } ?? "")\(step.line): \(step.text.isEmpty ? "(line \(step.line))" : step.text)"
  }

  /// `line N`, or `FILE:N` for a line of an included script.
  private static func lineName(_ step: PlaybackScript.Step) -> String {
    step.file.map { "\($0):\(step.line)" } ?? "line \(step.line)"
  }

  /// The case name in a TAP line, where `#` would start a directive.
  private static func tapName(_ step: PlaybackScript.Step) -> String {
    ReportText.tapName(caseName(step))
  }

  private func seconds(_ value: Double) -> String {
    String((value * 1000).rounded() / 1000)
  }
}
