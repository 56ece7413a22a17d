import PlayerCore
import PlayerScripts
import Testing

@Suite struct ScriptParserTests {
  @Test func parsesCommandsWaitsAndExpectations() throws {
    let text = """
      # a comment
      load "a b.flac"   # trailing comment
      play

      wait 1.5
      wait until ended timeout 10
      expect state paused
      expect position 12.0 ± 0.1
      expect position 3 +- 0.5
      expect volume 50%
      expect track 2
      expect title "Intro # not a comment"
      pause
      expect error invalid-state
      """
    let script = try ScriptParser.parse(text, name: "t.splay")
    #expect(script.steps.map(\.line) == [2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
    #expect(
      script.steps.map(\.action) == [
        .command(.load(["a b.flac"])), .command(.play), .wait(seconds: 1.5),
        .waitUntil(status: "ended", timeout: 10), .expect(.state("paused")),
        .expect(.position(12, tolerance: 0.1)), .expect(.position(3, tolerance: 0.5)), .expect(.volume(50)),
        .expect(.track(2)), .expect(.title("Intro # not a comment")), .command(.pause),
        .expectError(code: "invalid-state"),
      ])
  }

  @Test(arguments: [
    ("play\nfly", 2, 1, "unknown command 'fly'"),
    ("wait", 1, 1, "wait needs seconds"),
    ("wait -1", 1, 6, "expected seconds"),
    ("wait nan", 1, 6, "expected seconds"),
    ("wait until later", 1, 12, "unknown state 'later'"),
    // Never a confirmed state: a wait for it could only time out.
    ("wait until loading", 1, 12, "unknown state 'loading'"),
    ("wait until ended timeout", 1, 18, "expected 'timeout SECONDS'"),
    ("expect state dancing", 1, 14, "unknown state"),
    ("expect mood happy", 1, 8, "cannot expect 'mood'"),
    ("expect volume 200", 1, 15, "expected a volume 0-100"),
    ("expect error oops", 1, 14, "unknown error code 'oops'"),
    ("seek 5 6", 1, 8, "seek takes 1 argument"),
    ("load \"x", 1, 6, "unterminated quote"),
    ("\u{1}\u{2}garbage", 1, 1, "control character"),
  ])
  func reportsLineAndColumn(text: String, line: Int, column: Int, message: String) {
    #expect {
      try ScriptParser.parse(text, name: "s.splay")
    } throws: { error in
      guard let failure = error as? ScriptParser.Failure else { return false }
      return failure.line == line && failure.error.column == column && failure.error.message.contains(message)
        && failure.description.hasPrefix("s.splay:\(line):")
    }
  }

  @Test func refusesHugeLines() {
    let text = "load " + String(repeating: "x", count: 1_048_576)
    #expect {
      try ScriptParser.parse(text, name: "big")
    } throws: { error in
      (error as? ScriptParser.Failure)?.error.message.contains("longer than") == true
    }
  }

  @Test func windowsLineEndingsSeparateLines() throws {
    // "\r\n" is a single Character in Swift: a split on "\n" Characters left the whole script as one line.
    let script = try ScriptParser.parse("load a.flac\r\nplay\r\n\r\nwait 1.5\r\n", name: "crlf.splay")
    #expect(script.steps.map(\.line) == [1, 2, 4])
    #expect(script.steps.map(\.action) == [.command(.load(["a.flac"])), .command(.play), .wait(seconds: 1.5)])
    #expect(throws: ScriptParser.Failure.self) { try ScriptParser.parse("play\r\ndance\r\n", name: "crlf.splay") }
    do {
      _ = try ScriptParser.parse("play\r\ndance\r\n", name: "crlf.splay")
    } catch {
      #expect(
        error.description
          == "crlf.splay:2:1: unknown command 'dance' (expected one of: load, enqueue, play, pause, toggle, stop, seek, volume, mute, next, previous, jump, repeat, shuffle, wait, expect)"
      )
    }
  }
}
