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
    ("at 5", 1, 1, "at needs a position and a command"),
    ("at soon pause", 1, 4, "expected a position in seconds or end-SECONDS"),
    ("at end-x pause", 1, 4, "expected seconds before the end"),
    ("at 5 pauze", 1, 6, "unknown command 'pauze'"),
    ("at 5 wait 1", 1, 6, "unknown command 'wait'"),
    ("on track 0 pause", 1, 10, "expected a track number from 1"),
    ("on track 2", 1, 4, "on track needs a number and a command"),
    ("on later pause", 1, 4, "unknown state 'later'"),
    ("on ended", 1, 1, "on needs an event and a command"),
    ("wait until position > 3", 1, 21, "expected 'position >= SECONDS'"),
    ("wait until track 2 3", 1, 12, "expected 'track N'"),
    ("seek $T", 1, 6, "unknown variable 'T' (none is defined)"),
    ("let T = 1\nseek ${T", 2, 6, "'${' needs a name and '}'"),
    ("let 1x = 2", 1, 5, "is not a variable's name"),
    ("let x 2", 1, 1, "expected 'let NAME = VALUE'"),
    ("repeat 0 {", 1, 8, "expected a count from 1"),
    ("repeat 2 x {\nplay", 1, 1, "expected 'repeat N {'"),
    ("play\n}", 2, 1, "'}' closes no 'repeat N {'"),
    ("play\nrepeat 2 {\nplay", 2, 0, "'repeat' has no closing '}'"),
    ("repeat 1000 {\nrepeat 1001 {\nplay\n}\n}", 5, 1, "repeats to more than 1000000 steps"),
    ("expect-failure\nexpect-failure", 2, 1, "one expect-failure at most"),
    ("expect audio loud", 1, 14, "expected 'audio playing' or 'audio silent'"),
    ("expect audio silent 3", 1, 21, "unexpected '3'"),
    ("expect audio playing 12 ~ 1ms", 1, 25, "expected '± TOLERANCE'"),
    ("expect audio playing 12 ± 1 ms", 1, 25, "expected '± TOLERANCE'"),
    ("expect audio playing ± soon", 1, 24, "expected a tolerance"),
    ("check always quiet", 1, 14, "state-matches-server"),
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

  /// `expect audio`: a position and a tolerance in seconds or milliseconds, both optional; and the server rule.
  @Test func parsesAudioChecks() throws {
    let script = try ScriptParser.parse(
      """
      check always state-matches-server
      expect audio playing 12.0 ± 1ms
      expect audio playing 3 +- 0.002
      expect audio playing ± 2ms
      expect audio playing
      expect audio silent
      """, name: "t.splay")
    #expect(script.invariants == [.stateMatchesServer])
    #expect(script.asksTheServer)
    #expect(
      script.steps.map(\.action) == [
        .expect(.audio(.playing(from: 12, tolerance: 0.001))), .expect(.audio(.playing(from: 3, tolerance: 0.002))),
        .expect(.audio(.playing(from: nil, tolerance: 0.002))), .expect(.audio(.playing(from: nil, tolerance: 0.001))),
        .expect(.audio(.silent)),
      ])
    #expect(try !ScriptParser.parse("play\nexpect state playing", name: "t").asksTheServer)
  }

  /// `include FILE`: the included lines run in place, with the variables defined so far, paths taken from the
  /// included script's folder; each error names the file and line it is in.
  @Test func includesScriptsInPlace() throws {
    let files = [
      "lib/common.splay": "load a.flac\nplay\nexpect volume $V\ninclude deeper.splay",
      "lib/deeper.splay": "pause",
      "loop.splay": "include loop.splay",
      "lib/failing.splay": "expect-failure",
      "lib/closes.splay": "}",
      "lib/opens.splay": "repeat 2 {\nplay",
    ]
    let source = ScriptSource { path, directory in
      let joined = directory.isEmpty ? path : directory + "/" + path
      guard let text = files[joined] else { return .failure(ScriptSourceFailure("no such file")) }
      return .success(ScriptSource.Included(name: joined, directory: FileContents.directory(of: joined), text: text))
    }
    let script = try ScriptParser.parse(
      "let V = 40\nrepeat 2 {\ninclude lib/common.splay\n}\nstop", name: "t.splay", source: source
    )
    .resolvingPaths(relativeTo: "/music")
    #expect(script.steps.count == 9)
    #expect(script.steps[0].action == .command(.load(["lib/a.flac"])))
    #expect(script.steps[0].place(in: script) == "lib/common.splay:1")
    #expect(script.steps[2].action == .expect(.volume(40)))
    #expect(script.steps[3].place(in: script) == "lib/deeper.splay:1")
    #expect(script.steps[8].place(in: script) == "t.splay:5")
    func failure(_ text: String) -> String? {
      do {
        _ = try ScriptParser.parse(text, name: "t.splay", source: source)
        return nil
      } catch {
        return error.description
      }
    }
    #expect(failure("play\ninclude gone.splay") == "t.splay:2:9: cannot include gone.splay (no such file)")
    #expect(failure("include loop.splay")?.hasSuffix("include goes round: t.splay -> loop.splay -> loop.splay") == true)
    #expect(
      failure("include lib/failing.splay") == "lib/failing.splay:1:1: expect-failure belongs in the script that is run")
    #expect(failure("repeat 2 {\ninclude lib/closes.splay\n}") == "lib/closes.splay:1:1: '}' closes no 'repeat N {'")
    #expect(failure("include lib/opens.splay") == "lib/opens.splay:1: 'repeat' has no closing '}'")
    #expect(failure("include a b") == "t.splay:1:1: expected 'include FILE'")
    #expect(throws: ScriptParser.Failure.self) { try ScriptParser.parse("include x.splay", name: "t.splay") }
  }

  /// Triggers: `at` a position (or before the end) and `on` an event send a command; `wait until` takes a
  /// position or a track besides a state.
  @Test func parsesTriggers() throws {
    let text = """
      at 5.0 seek 12
      AT end-2.5 pause
      on track 3 volume 50
      on ended load "next one.flac"
      wait until position >= 12.5
      wait until position >= end-1
      wait until track 2
      wait until paused
      """
    let script = try ScriptParser.parse(text, name: "t.splay")
    #expect(
      script.steps.map(\.action) == [
        .at(.position(5), .seek(.absolute(12))), .at(.beforeEnd(2.5), .pause), .at(.track(3), .volume(.absolute(50))),
        .at(.status("ended"), .load(["next one.flac"])), .waitFor(.position(12.5)), .waitFor(.beforeEnd(1)),
        .waitFor(.track(2)), .waitUntil(status: "paused", timeout: 30),
      ])
    // A trigger's paths are the script's, like a command's.
    let resolved = script.resolvingPaths(relativeTo: "/music")
    #expect(resolved.steps[3].action == .at(.status("ended"), .load(["/music/next one.flac"])))
  }

  /// `let` and `$NAME` (with `--set` or `splay check` defining some first), `repeat N { … }` unrolled with the
  /// lines of its body, `expect-failure` kept on the script.
  @Test func parsesVariablesRepeatsAndAKnownFailure() throws {
    let text = """
      expect-failure "confirmed playing"
      let T = 2.5
      load "$FILE"
      repeat 2 {
        seek +1   # one second on
        repeat 2 {
          volume -5
        }
      }
      at $T pause
      expect title "costs $$5 ${T}s"
      repeat all
      """
    let script = try ScriptParser.parse(text, name: "t.splay", variables: ScriptVariables(["FILE": "a b.flac"]))
    #expect(script.expectedFailure == PlaybackScript.ExpectedFailure(line: 1, text: "confirmed playing"))
    #expect(script.steps.map(\.line) == [3, 5, 7, 7, 5, 7, 7, 10, 11, 12])
    #expect(script.steps[1].text == "seek +1")
    #expect(
      script.steps.map(\.action) == [
        .command(.load(["a b.flac"])), .command(.seek(.relative(1))), .command(.volume(.relative(-5))),
        .command(.volume(.relative(-5))), .command(.seek(.relative(1))), .command(.volume(.relative(-5))),
        .command(.volume(.relative(-5))), .at(.position(2.5), .pause), .expect(.title("costs $5 2.5s")),
        // Without a brace, `repeat` is the player's command.
        .command(.repeatMode(.all)),
      ])
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
          == "crlf.splay:2:1: unknown command 'dance' (expected one of: load, enqueue, play, pause, toggle, stop, seek, volume, mute, next, previous, jump, repeat, shuffle, wait, expect, at, on, let, check, expect-failure, include)"
      )
    }
  }
}
