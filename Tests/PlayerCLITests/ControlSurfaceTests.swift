import Foundation
import PlayerCore
import Testing

/// The rough spots of the command line a new user meets in seconds (issue 32's control surface), on the
/// simulated output: each message names the problem, and each option works where ArgumentParser allows it.
@Suite struct ControlSurfaceTests {
  private static let ladder = Splay.fixture("media/ladder-44k-stereo.flac")
  private static let short = Splay.fixture("media/short-44k-stereo.flac")

  private static func ctl(_ server: Server, _ arguments: String...) throws -> Splay.Result {
    try Splay.run(["ctl", "--socket", server.path] + arguments)
  }

  @Test func jumpOutOfRangeSaysTheRangeNotTheStatus() throws {
    let server = try Server()
    _ = try Self.ctl(server, "load", Self.ladder, Self.short)
    _ = try Self.ctl(server, "play")
    let jump = try Self.ctl(server, "jump", "99")
    #expect(jump.status == 1)
    #expect(jump.stderr.contains("jump is not possible for track 99: the queue has tracks 1–2"), "\(jump.stderr)")
  }

  @Test func optionsMayFollowTheCommandAndHelpListsEveryCommand() throws {
    let server = try Server()
    _ = try Self.ctl(server, "load", Self.ladder)
    let status = try Self.ctl(server, "status", "--json")
    #expect(status.status == 0, "\(status.stderr)")
    #expect(status.jsonLines.first?["status"] as? String == "stopped")
    let seek = try Self.ctl(server, "seek", "-5", "--json")
    #expect(seek.status == 0, "a negative number is still an argument: \(seek.stderr)")
    let help = try Splay.run(["ctl", "help"])
    #expect(help.status == 0)
    for command in CommandParser.commandNames + ["status", "follow", "quit"] {
      #expect(help.stdout.contains(command), "ctl help names \(command)")
    }
  }

  /// On a terminal `ctl status` shows the modes, so `ctl repeat all` gets a visible confirmation.
  @Test func statusOnATerminalShowsRepeatAndShuffle() throws {
    let server = try Server()
    _ = try Self.ctl(server, "load", Self.ladder)
    _ = try Self.ctl(server, "repeat", "all")
    let shown = try Splay.run(
      ["-qc", "\(Splay.binary) ctl --socket \(server.path) status", "/dev/null"], program: "/usr/bin/script")
    #expect(shown.stdout.contains("repeat: all"), "\(shown.stdout)")
    #expect(shown.stdout.contains("shuffle: off"), "\(shown.stdout)")
  }

  /// `--shuffle` keeps the queue in the order given (shuffle is a play order), and turns shuffle on.
  @Test func shuffleKeepsTheQueueInTheOrderGiven() throws {
    let files = [Self.ladder, Self.short, Splay.fixture("media/ladder-48k-mono.flac")]
    let play = try Splay.run(["play", "--shuffle", "--json", "--output", "simulated"] + files)
    #expect(play.status == 0, "\(play.stderr)")
    #expect(play.queue == files)
    #expect(play.jsonLines.last?["shuffle"] as? Bool == true)
  }

  @Test func optionValuesAreJudgedForWhatTheyAre() throws {
    let start = try Splay.run(["play", "--output", "simulated", "--start", "abc", Self.ladder])
    #expect(start.status == 2)
    #expect(start.stderr.contains("expected a position (90, 12.5, 1:30, 50%), found 'abc'"), "\(start.stderr)")
    #expect(!start.stderr.contains("step (+5"), "a start is not a step")
    let volume = try Splay.run(["play", "--output", "simulated", "--volume", "-5", Self.ladder])
    #expect(volume.status == 2)
    #expect(volume.stderr.contains("expected a level 0-100 (40, 40%), not a step"), "\(volume.stderr)")
  }

  @Test func aScriptTypoListsWaitAndExpectToo() throws {
    let result = try Splay.run(["run", "--output", "simulated", "-"], stdin: "lod song.flac\n")
    #expect(result.status == 2)
    #expect(
      result.stderr.contains("shuffle, wait, expect, at, on, let, check, expect-failure, include)"), "\(result.stderr)")
  }

  /// A URL splay cannot play is refused the same way on the command line as in a playlist; a playlist's `..` is
  /// tidied.
  @Test func urlsAndRelativePlaylistEntriesReadTheSameEverywhere() throws {
    let scratch = try ScratchDirectory("splay-surface")
    try FileManager.default.createDirectory(atPath: scratch.path + "/Playlists", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: scratch.path + "/Artist", withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Self.short, toPath: scratch.path + "/Artist/a.flac")
    let list = scratch.path + "/Playlists/list.m3u"
    try "../Artist/./a.flac\nsmb://nas/stream.mp3\n".write(toFile: list, atomically: true, encoding: .utf8)
    let direct = try Splay.run(["play", "--output", "simulated", "--json", "smb://nas/stream.mp3"])
    let listed = try Splay.run(["play", "--output", "simulated", "--json", list])
    let reason = "only local files and http(s) streams can be played"
    #expect(direct.stderr.contains("smb://nas/stream.mp3: cannot decode: \(reason)"), "\(direct.stderr)")
    #expect(listed.stderr.contains("list.m3u:2: smb://nas/stream.mp3: cannot decode: \(reason)"))
    #expect(listed.queue == [scratch.path + "/Artist/a.flac"], "\(listed.stdout)")
  }

  /// `info` and the damage line name the same length, to the millisecond.
  @Test func infoAndTheDamageLineAgreeOnTheLength() throws {
    let info = try Splay.run(["info", Splay.fixture("broken/truncated.flac")])
    let play = try Splay.run(["play", "--output", "simulated", "--json", Splay.fixture("broken/truncated.flac")])
    let ends = try #require(play.stderr.range(of: "the audio ends at ")).upperBound
    let length = String(play.stderr[ends...].prefix(8))
    #expect(info.stdout.contains(", \(length),"), "info: \(info.stdout) damage: \(play.stderr)")
  }
}
