import AudioTestSupport
import Foundation
import Testing

@Suite struct RunCommandTests {
  static let examples = ["pause-resume", "seek", "seek-end", "queue", "volume", "errors", "triggers"]

  @Test(arguments: examples)
  func everyExampleScriptPassesOnTheSimulatedOutput(name: String) throws {
    let result = try Splay.run(["run", "--output", "simulated", Splay.fixture("scripts/\(name).splay")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.seconds < 5, "virtual time: waits take no wall time")
  }

  @Test(
    .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"), arguments: examples)
  func everyExampleScriptPassesOnTheRealServer(name: String) async throws {
    try await ExclusiveSink.run {
      let result = try Splay.run(["run", Splay.fixture("scripts/\(name).splay")])
      #expect(result.status == 0, "\(result.stderr)")
    }
  }

  @Test func aFalseExpectationFailsWithItsLineNumber() throws {
    let result = try Splay.run([
      "run", "--output", "simulated", Splay.fixture("scripts/failing/false-expectation.splay"),
    ])
    #expect(result.status == 1)
    #expect(result.stderr.contains("false-expectation.splay:6: expected state paused, confirmed playing"))
  }

  @Test func aScriptThatDoesNotParseExitsTwoBeforeAnythingPlays() throws {
    let result = try Splay.run([
      "run", "--json", "--output", "simulated", Splay.fixture("scripts/failing/does-not-parse.splay"),
    ])
    #expect(result.status == 2)
    #expect(result.stderr.contains("does-not-parse.splay:3:6: expected seconds"))
    #expect(result.stdout.isEmpty, "nothing ran")
  }

  @Test func scriptsRunFromStdinAndPrintJSONLines() throws {
    let script = "load \(Splay.fixture("media/short-44k-stereo.flac"))\nplay\nwait until ended\nexpect state ended\n"
    let result = try Splay.run(["run", "--json", "--output", "simulated", "-"], stdin: script)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.statuses == ["stopped", "playing", "ended"])
    let revisions = result.jsonLines.compactMap { $0["revision"] as? Int }
    #expect(revisions == [1, 2, 3])
  }

  @Test func aMissingScriptIsAUsageError() throws {
    let result = try Splay.run(["run", "/nonexistent/script.splay"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("/nonexistent/script.splay: cannot read the script"))
  }
}
