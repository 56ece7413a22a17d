import AudioTestSupport
import Foundation
import Testing

/// `splay check`: the stock scenarios against files, on the simulated output here (the server's run is
/// PulseCheckCommandTests), with what a user gets wrong said in one line.
@Suite struct CheckCommandTests {
  private var media: [String] {
    get throws {
      try FileManager.default.contentsOfDirectory(atPath: Splay.fixture("media")).sorted().map {
        Splay.fixture("media/\($0)")
      }
    }
  }

  @Test func everyScenarioPassesOnEveryFixtureOnTheSimulatedOutput() throws {
    let files = try media
    let result = try Splay.run(["check", "--output", "simulated"] + files)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let checks = files.count * 6
    #expect(result.stdout.hasSuffix("\(checks) checks: \(checks) passed, 0 failed\n"), "\(result.stdout)")
  }

  @Test func aScenarioIsAScriptAUserCanRead() throws {
    let result = try Splay.run(["check", "--show", "pause-resume"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("at $PAUSE_AT pause"))
    let storm = try Splay.run(["check", "--show", "storm", "--seed", "7"])
    #expect(storm.stdout.split(separator: "\n").count == 1_000 + 9, "the storm's 1,000 commands and its frame")
    #expect(try Splay.run(["check", "--show", "storm", "--seed", "7"]).stdout == storm.stdout, "a seed is repeatable")
  }

  @Test func aFileThatCannotBeOpenedFailsEachCheckAndExitsThree() throws {
    let result = try Splay.run([
      "check", "--output", "simulated", "--scenario", "seeks", "--scenario", "storm",
      Splay.fixture("media/short-44k-stereo.flac"), "/nonexistent/gone.flac",
    ])
    #expect(result.status == 3, "\(result.stderr)")
    #expect(result.stdout.contains("ok    seeks         " + Splay.fixture("media/short-44k-stereo.flac")))
    #expect(result.stdout.contains("4 checks: 2 passed, 2 failed"), "\(result.stdout)")
    #expect(result.stdout.contains("/nonexistent/gone.flac (0.0 s): load failed: file-not-found"), "\(result.stdout)")
    #expect(result.stderr.contains("2 of 4 checks failed"), "\(result.stderr)")
  }

  @Test func reportsListEachFileAndScenario() throws {
    let file = Splay.fixture("media/short-44k-stereo.flac")
    let tap = try Splay.run(["check", "--output", "simulated", "--report", "tap", "--scenario", "seeks", file])
    #expect(tap.status == 0)
    #expect(tap.stdout == "TAP version 13\n1..1\nok 1 - \(file): seeks\n")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("splay-check-\(getpid())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let xml = directory + "/check.xml"
    let junit = try Splay.run(["check", "--output", "simulated", "--report", "junit=\(xml)", file])
    #expect(junit.status == 0)
    let parsed = try PulseEnvironment.run(
      "/usr/bin/python3",
      [
        "-c",
        "import sys, xml.etree.ElementTree as E\nr = E.parse(sys.argv[1]).getroot()\n"
          + "print(r.get('tests'), r.get('failures'), [c.get('name') for c in r.iter('testcase')])",
        xml,
      ])
    #expect(
      parsed.stdout
        == "6 0 ['play-to-end', 'seeks', 'pause-resume', 'gapless-pair', 'volume-steps', 'storm']\n",
      "\(parsed.stderr)")
  }

  @Test func anUnknownScenarioOrNoFileIsAUsageError() throws {
    let unknown = try Splay.run(["check", "--scenario", "fly", Splay.fixture("media/short-44k-stereo.flac")])
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("unknown scenario 'fly' (expected one of: play-to-end, seeks"))
    let none = try Splay.run(["check"])
    #expect(none.status == 2)
    #expect(none.stderr.contains("name the files to check"))
  }
}

/// `splay check fixtures/media/*` on the server of each flavour (`make test` and `make test-servers`).
@Suite(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseCheckCommandTests {
  @Test func everyScenarioPassesOnEveryFixtureOnTheServer() async throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Splay.fixture("media")).sorted().map {
      Splay.fixture("media/\($0)")
    }
    try await ExclusiveSink.run {
      let result = try Splay.run(["check"] + files, timeout: 600)
      let checks = files.count * 6
      #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
      #expect(result.stdout.hasSuffix("\(checks) checks: \(checks) passed, 0 failed\n"), "\(result.stdout)")
    }
  }
}
