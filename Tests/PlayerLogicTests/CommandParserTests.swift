import Foundation
import PlayerCore
import Testing

@Suite struct CommandParserTests {
  @Test(arguments: [
    ("play", PlayerCommand.play),
    ("  pause  ", .pause),
    ("toggle", .toggle),
    ("stop", .stop),
    ("next", .next),
    ("prev", .previous),
    ("seek 12.5", .seek(.absolute(12.5))),
    ("seek +5", .seek(.relative(5))),
    ("seek -5", .seek(.relative(-5))),
    ("seek 50%", .seek(.percent(50))),
    ("seek 1:30", .seek(.absolute(90))),
    ("seek 1:02:03.5", .seek(.absolute(3723.5))),
    ("volume 40", .volume(.absolute(40))),
    ("volume 40%", .volume(.absolute(40))),
    ("volume +5", .volume(.relative(5))),
    ("volume -10%", .volume(.relative(-10))),
    ("jump 2", .jump(toIndex: 1)),
    (#"load "a b.flac" c.mp3"#, .load(["a b.flac", "c.mp3"])),
    (#"enqueue 'it''s.flac'"#, .enqueue(["its.flac"])),
    (#"load "say \"hi\".wav""#, .load([#"say "hi".wav"#])),
  ])
  func parsesTextForm(line: String, expected: PlayerCommand) throws {
    #expect(try CommandParser.parse(line) == expected)
  }

  @Test(arguments: [
    ("", 0, "expected a command"),
    ("dance", 1, "unknown command 'dance'"),
    ("  seek", 3, "seek needs an argument"),
    ("seek abc", 6, "expected seconds"),
    ("seek nan", 6, "expected seconds"),
    ("seek inf", 6, "expected seconds"),
    ("seek 1e3", 6, "expected seconds"),
    ("seek 101%", 6, "percent is 0-100"),
    ("seek 99999999999", 6, "expected seconds"),
    ("volume 101", 8, "expected a level 0-100"),
    ("volume loud", 8, "expected a level"),
    ("play now", 6, "play takes no arguments, found 'now'"),
    ("jump 0", 6, "expected a track number"),
    (#"load "unterminated"#, 6, "unterminated quote"),
    ("load", 1, "load needs at least one file"),
    ("pause\u{0}", 6, "control character U+0000"),
  ])
  func rejectsWithColumn(line: String, column: Int, message: String) {
    #expect {
      try CommandParser.parse(line)
    } throws: { error in
      guard let error = error as? CommandParseError else { return false }
      return error.column == column && error.message.contains(message)
    }
  }

  @Test func textFormRoundTrips() throws {
    let commands: [PlayerCommand] = [
      .load(["a b.flac", #"q"uote\.mp3"#, "plain.ogg"]), .enqueue(["x"]), .play, .pause, .toggle, .stop,
      .seek(.absolute(12.345)), .seek(.relative(-0.5)), .seek(.relative(0)), .seek(.percent(33.3)),
      .volume(.absolute(0)), .volume(.relative(-100)), .next, .previous, .jump(toIndex: 41),
    ]
    for command in commands {
      #expect(try CommandParser.parse(command.description) == command, "\(command.description)")
    }
  }

  @Test func seekTargetsClampToTheTrack() {
    #expect(SeekTarget.absolute(100).resolve(from: 0, duration: 30) == 30)
    #expect(SeekTarget.relative(-10).resolve(from: 3, duration: 30) == 0)
    #expect(SeekTarget.percent(50).resolve(from: 3, duration: 30) == 15)
    #expect(VolumeChange.relative(30).resolve(from: 90) == 100)
    #expect(VolumeChange.relative(-30).resolve(from: 10) == 0)
  }

  @Test func aPathWithANULIsRefused() {
    // C would stop at the NUL and open another file than the one named.
    #expect(throws: CommandParseError.self) {
      try CommandParser.parse(name: "load", arguments: ["/etc/passwd\u{0}.flac"])
    }
  }

  // Found by the command-parser fuzz target (Fuzz/): a quote followed by a combining mark is one Swift
  // Character, which a Character-based tokenizer did not take for a quote, so printed commands did not parse.
  @Test func quotesFollowedByCombiningMarksStillQuote() throws {
    let command = try CommandParser.parse("load \"\u{301} x\" '\u{656}y'")
    #expect(command == .load(["\u{301} x", "\u{656}y"]))
    #expect(try CommandParser.parse(command.description) == command)
  }

  // Found by the command-parser fuzz target: an escaped control character inside double quotes was let through.
  @Test func anEscapedControlCharacterIsRefused() {
    #expect(throws: CommandParseError(column: 9, message: "control character U+0018 is not allowed")) {
      try CommandParser.parse("load \"a\\\u{18}b\"")
    }
  }
}
