import AudioTestSupport
import Foundation
import Testing

/// MPRIS against the real audio server of `make test`: a call the frozen server cannot confirm, and `splay play`.
@Suite(
  .enabled(
    if: SessionBus.missing == nil && PulseEnvironment.available,
    "needs the private PulseAudio server of `make test`, dbus and playerctl"))
struct MPRISPulseTests {
  static func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  /// With the server stopped (SIGSTOP), `PlayPause` cannot be confirmed: the call fails with
  /// `org.splay.Error.Timeout` once the deadline (1 s) and the re-read of the real state (1 s more) have passed,
  /// and no `PlaybackStatus` is announced meanwhile. Once the server continues, what it confirmed late is
  /// announced, and the bus and the socket agree.
  @Test func aPlayPauseTheFrozenServerCannotConfirmFailsWithTimeoutAndAnnouncesNothing() async throws {
    try await ExclusiveSink.run {
      let bus = try SessionBus()
      let server = try Server(output: "pulse", extra: ["--deadline", "1"], environment: bus.environment)
      #expect(bus.waitForPlayer())
      try MPRISTests.ctl(server, "load", MPRISTests.sweep)
      #expect(try bus.playerctl("play").status == 0)
      #expect(try MPRISTests.ctl(server, "status")?["status"] as? String == "playing")
      let scratch = try ScratchDirectory("splay-frozen")
      let log = scratch.path + "/monitor"
      let monitor = try bus.start(
        "dbus-monitor", ["--session", "type='signal',path='/org/mpris/MediaPlayer2'"], output: log)
      defer { kill(monitor.pid, SIGKILL) }
      for _ in 0..<500 where !Self.text(log).contains("NameAcquired") { usleep(10_000) }

      let found = try PulseEnvironment.run(Splay.root + "/scripts/pulse-sandbox", ["pid"])
      let daemon = try #require(pid_t(found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "no pid")
      kill(daemon, SIGSTOP)
      var stopped = true
      defer { if stopped { kill(daemon, SIGCONT) } }
      let toggle = try bus.playerctl("play-pause")
      #expect(toggle.status != 0)
      #expect(
        toggle.stderr.contains("org.splay.Error.Timeout: toggle was not confirmed within 1 s"), "\(toggle.stderr)")
      #expect(toggle.seconds >= 1 && toggle.seconds < 5, "replied after \(toggle.seconds) s")
      usleep(300_000)
      #expect(!Self.text(log).contains(#"string "PlaybackStatus""#), "nothing was confirmed: \(Self.text(log))")

      kill(daemon, SIGCONT)
      stopped = false
      // The cork went to the server before it froze; it confirms it now, late, and that is published.
      var agreed = false
      for _ in 0..<100 where !agreed {
        let status = try MPRISTests.ctl(server, "status")?["status"] as? String
        let mpris = try bus.playerctl("status").stdout
        agreed = (status == "paused" && mpris == "Paused") || (status == "playing" && mpris == "Playing")
        if !agreed { usleep(50_000) }
      }
      #expect(agreed, "the bus says what the socket says")
    }
  }

  /// A volume set on the server by someone else (pavucontrol, here pactl) reaches the bus as `Volume`.
  @Test func aVolumeSetOnTheServerShowsUpOnTheBus() async throws {
    try await ExclusiveSink.run {
      let bus = try SessionBus()
      let server = try Server(output: "pulse", environment: bus.environment)
      #expect(bus.waitForPlayer())
      try MPRISTests.ctl(server, "load", MPRISTests.sweep)
      #expect(try bus.playerctl("play").status == 0)
      let listing = try PulseEnvironment.run("/usr/bin/pactl", ["list", "sink-inputs"]).stdout
      let block = listing.components(separatedBy: "Sink Input #").first {
        $0.contains("application.process.id = \"\(server.process.pid)\"")
      }
      let index = try #require(block.map { String($0.prefix { $0.isNumber }) }, "no stream of the server's")
      #expect(try PulseEnvironment.run("/usr/bin/pactl", ["set-sink-input-volume", index, "30%"]).status == 0)
      var volume = ""
      for _ in 0..<100 where volume != "0.300000" {
        volume = try bus.playerctl("volume").stdout
        if volume != "0.300000" { usleep(50_000) }
      }
      #expect(volume == "0.300000")
      #expect(try MPRISTests.ctl(server, "status")?["volume"] as? Int == 30)
    }
  }

  /// `splay play --json` serves MPRIS too: playerctl pauses it (the JSON lines show the confirmed pause), reads
  /// its metadata, and `Quit` ends it as `q` would.
  @Test func playServesMPRISUntilQuit() async throws {
    try await ExclusiveSink.run {
      let bus = try SessionBus()
      let scratch = try ScratchDirectory("splay-play-mpris")
      let out = scratch.path + "/out"
      let play = try ChildProcess(
        [Splay.binary, "play", "--json", MPRISTests.sweep],
        environment: ProcessInfo.processInfo.environment.merging(bus.environment) { $1 }, stdout: out)
      #expect(bus.waitForPlayer())
      #expect(try bus.playerctl("pause").status == 0)
      let statuses = Self.text(out).split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["status"] as? String
      }
      #expect(statuses.last == "paused", "the pause was printed before playerctl returned: \(statuses)")
      #expect(try bus.playerctl("status").stdout == "Paused")
      #expect(try bus.playerctl("metadata", "title").stdout == "Sweep 30 s")
      #expect(try MPRISTests.call(bus, "org.mpris.MediaPlayer2.Quit").status == 0)
      #expect(play.wait(timeout: 5) == 0)
    }
  }
}
