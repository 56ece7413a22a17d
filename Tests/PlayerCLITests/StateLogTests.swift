import AudioTestSupport
import Foundation
import Testing

/// `splay run --record FILE` and `--expect-log FILE`: a run's confirmed states, line by line, and a later run
/// held to them, positions within a tolerance.
@Suite struct StateLogTests {
  private let script = Splay.fixture("scripts/triggers.splay")

  /// A fresh folder for this test's logs.
  private func folder() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("splay-log-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// The log's lines as JSON objects.
  private func entries(_ path: String) throws -> [[String: Any]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  @Test func aRecordedRunIsTheLogAnotherRunMatches() throws {
    let log = try folder() + "/triggers.log"
    let recorded = try Splay.run(["run", "--output", "simulated", "--record", log, script])
    #expect(recorded.status == 0, "\(recorded.stderr)")
    let lines = try entries(log)
    #expect(lines.count == 17, "one entry per line of the script that does something")
    #expect(lines[1]["line"] as? Int == 7 && lines[1]["text"] as? String == "load ../media/sweep-30s.flac")
    #expect((lines[3]["state"] as? [String: Any])?["status"] as? String == "playing")
    let again = try Splay.run(["run", "--output", "simulated", "--expect-log", log, script])
    #expect(again.status == 0, "\(again.stderr)")
  }

  @Test func aStateThatDiffersFailsItsLineNamingTheLogsLine() throws {
    let log = try folder() + "/triggers.log"
    _ = try Splay.run(["run", "--output", "simulated", "--record", log, script])
    // The state after `at 1.5 seek 20` (the log's fourth line) recorded at 19 s instead of 20 s.
    var lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
    lines[3] = lines[3].replacingOccurrences(of: "\"seconds\":20", with: "\"seconds\":19")
    try (lines.joined(separator: "\n") + "\n").write(toFile: log, atomically: true, encoding: .utf8)
    let strict = try Splay.run(["run", "--output", "simulated", "--expect-log", log, script])
    #expect(strict.status == 1)
    #expect(
      strict.stderr.contains("triggers.splay:10: differs from \(log):4: position 20 s, recorded 19 s (± 0.1)"),
      "\(strict.stderr)")
    let lenient = try Splay.run(["run", "--output", "simulated", "--expect-log", log, "--log-tolerance", "1", script])
    #expect(lenient.status == 0, "\(lenient.stderr)")
  }

  @Test func aLogOfAnotherScriptOrAnotherLengthOrNoLogAtAllIsSaid() throws {
    let directory = try folder()
    let log = directory + "/seek.log"
    _ = try Splay.run(["run", "--output", "simulated", "--record", log, Splay.fixture("scripts/seek.splay")])
    let other = try Splay.run(["run", "--output", "simulated", "--expect-log", log, script])
    #expect(other.status == 1)
    #expect(other.stderr.contains("was recorded from another script"), "\(other.stderr)")
    // The same script cut short (in a folder where its relative paths hold): the log goes on after the run.
    try FileManager.default.createDirectory(atPath: directory + "/scripts", withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: directory + "/media", withDestinationPath: Splay.fixture("media"))
    let short = directory + "/scripts/short.splay"
    let text = try String(contentsOfFile: Splay.fixture("scripts/seek.splay"), encoding: .utf8)
    try text.split(separator: "\n").prefix(6).joined(separator: "\n").write(
      toFile: short, atomically: true, encoding: .utf8)
    let cut = try Splay.run(["run", "--output", "simulated", "--expect-log", log, short])
    #expect(cut.status == 1)
    #expect(
      cut.stderr.contains("\(log): the log goes on to line 7 ('pause'), the run ended before it"), "\(cut.stderr)")
    let garbage = directory + "/garbage.log"
    try "{\"line\": 1}\n".write(toFile: garbage, atomically: true, encoding: .utf8)
    let bad = try Splay.run(["run", "--output", "simulated", "--expect-log", garbage, script])
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("\(garbage):1: not a line of a state log"))
    let missing = try Splay.run(["run", "--output", "simulated", "--expect-log", directory + "/none.log", script])
    #expect(missing.status == 2)
    #expect(missing.stdout.isEmpty, "nothing ran")
  }

  /// A log recorded on virtual time holds a run on the server, within the default tolerance.
  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func aLogRecordedOnTheSimulatedOutputHoldsARunOnTheServer() async throws {
    let log = try folder() + "/triggers.log"
    _ = try Splay.run(["run", "--output", "simulated", "--record", log, script])
    try await ExclusiveSink.run {
      let result = try Splay.run(["run", "--expect-log", log, script])
      #expect(result.status == 0, "\(result.stderr)")
    }
  }
}
