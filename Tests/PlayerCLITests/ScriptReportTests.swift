import AudioTestSupport
import Foundation
import Testing

/// `splay run --report`: each line of a script as a test case, in TAP on stdout or JUnit XML in a file, read
/// back by the parsers CI uses (Python's XML parser stands in for a JUnit reader).
@Suite struct ScriptReportTests {
  private let failing = Splay.fixture("scripts/failing/false-expectation.splay")

  @Test func tapListsEveryLineAndKeepsTheStatesAsComments() throws {
    let result = try Splay.run([
      "run", "--output", "simulated", "--report", "tap", Splay.fixture("scripts/seek.splay"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "TAP version 13")
    #expect(lines.last == "1..18", "the plan comes last")
    let cases = lines.filter { $0.hasPrefix("ok ") || $0.hasPrefix("not ok ") }
    #expect(cases.count == 18)
    #expect(cases.allSatisfy { $0.hasPrefix("ok ") })
    #expect(cases[3] == "ok 4 - 5: expect state playing")
    #expect(lines.contains { $0.hasPrefix("# #1 stopped") }, "the states are TAP comments")
  }

  @Test func aFailedLineIsNotOkWithItsMessageAndTheRestAreSkipped() throws {
    let result = try Splay.run(["run", "--output", "simulated", "--report", "tap", failing])
    #expect(result.status == 1, "the exit status is the script's, as without a report")
    let cases = result.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") || $0.hasPrefix("not ok ") }
    #expect(
      cases == [
        "ok 1 - 2: load ../../media/ladder-44k-stereo.wav", "ok 2 - 3: play", "ok 3 - 4: expect state playing",
        "not ok 4 - 6: expect state paused",
      ])
    #expect(result.stdout.contains("  message: \"expected state paused, confirmed playing\""))
  }

  @Test func aScriptThatStopsEarlySkipsItsOtherLines() throws {
    let script =
      "load \(Splay.fixture("media/short-44k-stereo.flac"))\nexpect state paused\nplay\nexpect state playing\n"
    let result = try Splay.run(["run", "--output", "simulated", "--report", "tap", "-"], stdin: script)
    #expect(result.status == 1)
    #expect(result.stdout.contains("ok 3 - 3: play # SKIP not run: line 2 failed"))
    #expect(result.stdout.contains("ok 4 - 4: expect state playing # SKIP not run: line 2 failed"))
  }

  /// A run that fails besides its lines (a known failure that no longer happens) is not a green report.
  @Test func aFailureOfTheRunItselfIsACaseToo() throws {
    let script = "expect-failure\nload \(Splay.fixture("media/short-44k-stereo.flac"))\nplay\n"
    let result = try Splay.run(["run", "--output", "simulated", "--report", "tap", "-"], stdin: script)
    #expect(result.status == 1)
    #expect(result.stdout.contains("not ok 3 - -: the run\n"), "\(result.stdout)")
    #expect(result.stdout.hasSuffix("1..3\n"))
  }

  @Test func junitGoesToItsFileAndParses() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("splay-report-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("report & <more>.xml").path
    let result = try Splay.run(["run", "--output", "simulated", "--report", "junit=\(file)", failing])
    #expect(result.status == 1)
    #expect(result.stdout.contains("#1 stopped"), "the states still go to stdout")
    let summary = try PulseEnvironment.run(
      "/usr/bin/python3",
      [
        "-c",
        """
        import sys, xml.etree.ElementTree as E
        suite = E.parse(sys.argv[1]).getroot().find('testsuite')
        print(suite.get('tests'), suite.get('failures'), suite.get('skipped'))
        for case in suite.iter('testcase'):
            failure = case.find('failure')
            print(case.get('name'), '|', failure.get('message') if failure is not None else 'ok')
        """,
        file,
      ])
    #expect(summary.status == 0, "\(summary.stderr)")
    let lines = summary.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "4 1 0")
    #expect(lines.last == "6: expect state paused | \(failing):6: expected state paused, confirmed playing")
  }

  @Test func aReportThatCannotBeWrittenIsSaidBeforeAnythingPlays() throws {
    let result = try Splay.run([
      "run", "--output", "simulated", "--report", "junit=/nonexistent/dir/r.xml", failing,
    ])
    #expect(result.status == 3)
    #expect(result.stderr.contains("/nonexistent/dir/r.xml: cannot write the report"))
    #expect(result.stdout.isEmpty, "nothing ran")
  }

  @Test func jsonAndAReportOnStdoutAreRefused() throws {
    let result = try Splay.run(["run", "--output", "simulated", "--json", "--report", "tap", failing])
    #expect(result.status == 2)
    #expect(result.stderr.contains("--json and a --report on stdout"))
    let unknown = try Splay.run(["run", "--output", "simulated", "--report", "xml", failing])
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("'tap', 'junit', 'tap=FILE' or 'junit=FILE'"), "\(unknown.stderr)")
  }
}
