import AudioTestSupport
import Foundation
import Testing

@Suite struct RunCommandTests {
  static let examples = ["pause-resume", "seek", "seek-end", "queue", "volume", "errors", "triggers", "audio"]

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

  /// An included line that fails names its own file and line; the audio checks the simulated output cannot
  /// judge say so on stderr and in the report, and are not passed.
  @Test func includedLinesAndUnjudgedChecksAreNamed() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("splay-include-\(getpid())").path
    try FileManager.default.createDirectory(atPath: folder + "/lib", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try "load \(Splay.fixture("media/short-44k-stereo.flac"))\nplay\nexpect audio playing\nexpect state paused\n"
      .write(toFile: folder + "/lib/start.splay", atomically: true, encoding: .utf8)
    try "# a comment\ninclude lib/start.splay\nstop\n".write(
      toFile: folder + "/t.splay", atomically: true, encoding: .utf8)
    let result = try Splay.run(["run", "--output", "simulated", "--report", "tap", folder + "/t.splay"])
    #expect(result.status == 1)
    #expect(
      result.stderr.contains("\(folder)/lib/start.splay:4: expected state paused, confirmed playing"),
      "\(result.stderr)")
    // With the report on stdout, the notes are its comments.
    #expect(
      result.stdout.contains(
        "# \(folder)/lib/start.splay:3: expect audio playing: not judged: the simulated output has no server to read"),
      "\(result.stdout)")
    #expect(
      result.stdout.contains("ok 3 - \(folder)/lib/start.splay:3: expect audio playing # SKIP not judged"),
      "\(result.stdout)")
    #expect(
      result.stdout.contains("ok 5 - 3: stop # SKIP not run: \(folder)/lib/start.splay:4 failed"), "\(result.stdout)")
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
