import Foundation
import PlayerCore
import Testing

/// Scripts that do not parse: `splay run` names SCRIPT:LINE[:COLUMN] and the problem, exits 2, and runs
/// nothing — every line is checked before any audio starts (two valid lines precede each bad one, and with
/// --json not one state is printed).
@Suite struct ScriptGarbageTests {
  /// A bad third line, and what the error must say after `SCRIPT:3:`.
  static let garbage: [(String, String)] = [
    ("dance", "1: unknown command 'dance'"),
    ("PLAY now", "6: PLAY takes no arguments, found 'now'"),
    ("seek", "1: seek needs an argument"),
    ("seek 1 2", "8: seek takes 1 argument, found '2'"),
    ("load", "1: load needs at least one file"),
    ("seek sideways", "6: expected seconds (12.5)"),
    ("seek nan", "6: expected seconds (12.5)"),
    ("seek -inf", "6: expected seconds (12.5)"),
    ("seek 1e3", "6: expected seconds (12.5)"),
    ("seek 99999999999", "6: expected seconds (12.5)"),
    ("volume -5000", "8: expected a level 0-100"),
    ("volume 99999999999999999999999", "8: expected a level 0-100"),
    ("jump 0", "6: expected a track number from 1"),
    ("jump -1", "6: expected a track number from 1"),
    ("jump 99999999999999999999", "6: expected a track number from 1"),
    ("wait -1", "6: expected seconds (wait 1.5) up to 86400"),
    ("wait 1e400", "6: expected seconds (wait 1.5) up to 86400"),
    ("wait NaN", "6: expected seconds (wait 1.5) up to 86400"),
    ("wait until ended timeout -3", "26: expected a timeout in seconds"),
    ("wait until later", "12: unknown state 'later'"),
    ("expect position 1 ± nan", "21: expected a tolerance in seconds"),
    ("expect volume 101", "15: expected a volume 0-100"),
    ("expect error nope", "14: unknown error code 'nope'"),
    ("expect state", "1: expect needs what to check"),
    (#"load "a.flac"#, "6: unterminated quote"),
    ("load 'a.flac", "6: unterminated quote"),
    (#"expect title "x\""#, "14: unterminated quote"),
    ("\u{1}\u{2}garbage\u{7F}", "1: control character U+0001 is not allowed"),
    ("play\u{0}stop", "5: control character U+0000 is not allowed"),
  ]

  static let prelude = "load ../media/short-44k-stereo.flac\nplay\n"

  @Test(arguments: garbage)
  func aBadLineIsReportedWithItsPositionBeforeAnythingRuns(line: String, expected: String) throws {
    let result = try runScript(Data((Self.prelude + line + "\nstop\n").utf8))
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.hasPrefix("splay: \(result.script):3:\(expected)"), "\(result.stderr)")
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stdout.isEmpty, "nothing ran")
  }

  @Test func aOneMegabyteLineIsRefused() throws {
    let line = "load " + String(repeating: "a", count: 1 << 20)
    let result = try runScript(Data((Self.prelude + line + "\n").utf8))
    #expect(result.status == 2)
    #expect(result.stderr == "splay: \(result.script):3: the line is longer than 65536 bytes\n")
    #expect(result.stdout.isEmpty)
  }

  @Test func binaryGarbageIsRefused() throws {
    var generator = SplitMix64(seed: 7)
    let bytes = (0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let result = try runScript(Data(Self.prelude.utf8) + Data(bytes))
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.hasPrefix("splay: \(result.script):3:"), "\(result.stderr)")
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stdout.isEmpty)
  }

  @Test func invalidUTF8IsAnUnknownCommandNotACrash() throws {
    let result = try runScript(Data(Self.prelude.utf8) + Data([0xFF, 0xFE, 0xC3, 0x28, 0x0A]))
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("splay: \(result.script):3:1: unknown command"), "\(result.stderr)")
    #expect(result.stdout.isEmpty)
  }

  @Test func aScriptOverTheLineLimitIsRefused() throws {
    let text = Self.prelude + String(repeating: "# comment\n", count: 100_000)
    let result = try runScript(Data(text.utf8))
    #expect(result.status == 2)
    #expect(result.stderr == "splay: \(result.script):100001: the script is longer than 100000 lines\n")
    #expect(result.stdout.isEmpty)
  }

  @Test func windowsLineEndingsRun() throws {
    let text = Self.prelude.replacingOccurrences(of: "\n", with: "\r\n") + "wait until ended\r\nexpect state ended\r\n"
    let result = try runScript(Data(text.utf8))
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.split(separator: "\n").last?.contains("\"status\":\"ended\"") == true)
  }

  /// Writes the script into fixtures/scripts' sibling scratch folder layout (so `../media` resolves) and runs it
  /// on the simulated output with --json.
  private func runScript(_ contents: Data) throws -> (status: Int32, stdout: String, stderr: String, script: String) {
    let scratch = try ScratchDirectory()
    let scripts = scratch.path + "/scripts"
    try FileManager.default.createDirectory(atPath: scripts, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: scratch.path + "/media", withDestinationPath: Splay.fixture("media"))
    let script = scripts + "/garbage.splay"
    try contents.write(to: URL(fileURLWithPath: script))
    let result = try Splay.run(["run", "--json", "--output", "simulated", script], timeout: 10)
    #expect(result.seconds < 5)
    return (result.status, result.stdout, result.stderr, script)
  }
}
