import AudioTestSupport
import Foundation
import PlayerCore
import Testing

/// The live view, driven through tmux as a person would: keys in, screen out.
@Suite(
  .serialized,
  .enabled(if: Tmux.available && PulseEnvironment.available, "needs tmux and the private PulseAudio server"))
struct TerminalViewTests {
  @Test func theScreenShowsTheTrackPausesOnSpaceAndRestoresTheTerminalOnQuit() async throws {
    try await ExclusiveSink.run {
      let session = "splay-test-\(getpid())"
      let command =
        "\(Splay.binary) play \(Splay.fixture("media/sweep-30s.flac")); "
        // Written aside and renamed, so that the test never reads a file the shell has created but stty has
        // not written yet.
        + "stty -a > /tmp/\(session).partial && mv /tmp/\(session).partial /tmp/\(session).stty; sleep 30"
      try Tmux.start(session, command)
      defer { Tmux.end(session) }
      // The bar fills as the confirmed position is interpolated: wait for its first step.
      let playing = try Tmux.waitForScreen(session) { $0.contains("splay — playing") && $0.contains("[=") }
      #expect(playing.contains("Sweep 30 s"))
      #expect(playing.contains("sweep-30s.flac"))
      #expect(playing.contains("0:30"))
      #expect(playing.contains("q quit"))
      try Tmux.run(["send-keys", "-t", session, " "])
      let paused = try Tmux.waitForScreen(session) { $0.contains("splay — paused") }
      // The stream's real volume: 100 % on a fresh server; on PipeWire, what WirePlumber remembers from an earlier
      // suite's stream.
      let volume = try #require(Self.volume(on: paused), "a volume on the screen:\n\(paused)")
      let louder = min(volume + 5, 100)
      try Tmux.run(["send-keys", "-t", session, "+"])
      _ = try Tmux.waitForScreen(session) { Self.volume(on: $0) == louder }
      try Tmux.run(["send-keys", "-t", session, "-"])
      _ = try Tmux.waitForScreen(session) { Self.volume(on: $0) == louder - 5 }
      try Tmux.run(["send-keys", "-t", session, "q"])
      let stty = "/tmp/\(session).stty"
      let settings = try #require(FileAppearance.lines(at: stty, within: 3), "stty wrote the settings")
      try? FileManager.default.removeItem(atPath: stty)
      #expect(settings.contains(" icanon") && settings.contains(" echo"), "the terminal is back in cooked mode")
      let after = try Tmux.capture(session)
      #expect(!after.contains("\u{1B}[?25l"), "the cursor is shown again")
    }
  }

  /// `p` early in a track goes to the previous one; later, or on the first track, it starts the track again.
  @Test func pGoesBackEarlyInATrackAndRestartsItLater() async throws {
    try await ExclusiveSink.run {
      let session = "splay-back-\(getpid())"
      let files = ["media/sweep-30s.flac", "media/sweep-30s.mp3"].map(Splay.fixture).joined(separator: " ")
      try Tmux.start(session, "\(Splay.binary) play \(files); sleep 30")
      defer { Tmux.end(session) }
      _ = try Tmux.waitForScreen(session) { $0.contains("splay — playing") && $0.contains("sweep-30s.flac") }
      try Tmux.run(["send-keys", "-t", session, "n"])
      _ = try Tmux.waitForScreen(session) { $0.contains("splay — playing") && $0.contains("sweep-30s.mp3") }
      try Tmux.run(["send-keys", "-t", session, "p"])
      _ = try Tmux.waitForScreen(session) { $0.contains("splay — playing") && $0.contains("sweep-30s.flac") }
      // Past 3 s into the first track: `p` restarts it (and would on the first track anyway).
      _ = try Tmux.waitForScreen(session) { Self.clock(in: $0).hasPrefix("0:04") }
      try Tmux.run(["send-keys", "-t", session, "p"])
      let restarted = try Tmux.waitForScreen(session) { screen in
        ["0:00", "0:01"].contains { Self.clock(in: screen).hasPrefix($0) }
      }
      #expect(restarted.contains("sweep-30s.flac") && restarted.contains("splay — playing"))
      try Tmux.run(["send-keys", "-t", session, "q"])
    }
  }

  /// `/` finds a track in the queue by words of its path, accents and case ignored (typed as UTF-8), and Enter
  /// plays it; a query without a match closes on Enter and changes nothing.
  @Test func slashFindsATrackInTheQueueAndEnterPlaysIt() async throws {
    try await ExclusiveSink.run {
      let scratch = try ScratchDirectory("splay-find")
      for name in ["01 Alpha.flac", "02 Björk Beta.flac", "03 Gamma.flac"] {
        try FileManager.default.copyItem(
          atPath: Splay.fixture("media/sweep-30s.flac"), toPath: scratch.path + "/" + name)
      }
      let session = "splay-find-\(getpid())"
      try Tmux.start(session, columns: 120, "\(Splay.binary) play '\(scratch.path)'; sleep 30")
      defer { Tmux.end(session) }
      _ = try Tmux.waitForScreen(session) { $0.contains("splay — playing") && $0.contains("track 1/3") }
      try Tmux.run(["send-keys", "-t", session, "/"])
      _ = try Tmux.waitForScreen(session) { $0.contains("find in the queue") }
      try Tmux.run(["send-keys", "-t", session, "-l", "BJÖRK be"])
      // The query as typed, and its one match.
      let found = try Tmux.waitForScreen(session) { $0.contains("/BJÖRK be") && $0.contains("1 of 1: #2") }
      #expect(found.contains("track 1/3"), "typing plays nothing")
      try Tmux.run(["send-keys", "-t", session, "Enter"])
      let jumped = try Tmux.waitForScreen(session) { $0.contains("track 2/3") && $0.contains("splay — playing") }
      #expect(jumped.contains("02 Björk Beta.flac"))
      #expect(!jumped.contains("find in the queue"), "the prompt closed")
      try Tmux.run(["send-keys", "-t", session, "/", "a"])
      let two = try Tmux.waitForScreen(session) { $0.contains("of 3: #3") }
      #expect(two.contains("1 of 3: #3"), "what comes next first:\n\(two)")
      try Tmux.run(["send-keys", "-t", session, "-l", "zzz"])
      _ = try Tmux.waitForScreen(session) { $0.contains("no match") }
      try Tmux.run(["send-keys", "-t", session, "Enter"])
      _ = try Tmux.waitForScreen(session) { !$0.contains("no match") }
      // Esc alone closes the prompt, without waiting for another key.
      try Tmux.run(["send-keys", "-t", session, "/"])
      _ = try Tmux.waitForScreen(session) { $0.contains("find in the queue") }
      try Tmux.run(["send-keys", "-t", session, "Escape"])
      _ = try Tmux.waitForScreen(session) { !$0.contains("find in the queue") }
      #expect(try Tmux.capture(session).contains("track 2/3"), "no match plays nothing")
      try Tmux.run(["send-keys", "-t", session, "q"])
    }
  }

  /// With a library index, `/` also finds queued tracks by the titles, artists and albums it holds, words their
  /// paths lack (only the playing track's own tags were searched before).
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/metaflac"), "needs metaflac"))
  func slashFindsQueuedTracksByTheTagsTheLibraryIndexHolds() async throws {
    try await ExclusiveSink.run {
      let scratch = try ScratchDirectory("splay-find-tags")
      let music = scratch.path + "/Music"
      try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
      for (name, title) in [("01.flac", "Hunter"), ("02.flac", "Jóga"), ("03.flac", "Bachelorette")] {
        try FileManager.default.copyItem(atPath: Splay.fixture("media/sweep-30s.flac"), toPath: music + "/" + name)
        let tagged = try Splay.run(
          ["--remove-all-tags", "--set-tag=TITLE=" + title, "--set-tag=ARTIST=Björk", music + "/" + name],
          program: "/usr/bin/metaflac")
        #expect(tagged.status == 0, "\(tagged.stderr)")
      }
      let environment = ["XDG_CACHE_HOME": scratch.path + "/cache", "XDG_STATE_HOME": scratch.path + "/state"]
      let library = environment.map { "\($0.key)=\($0.value)" }
      #expect(try Splay.run(["library", "add", music], environment: environment).status == 0)
      let session = "splay-find-tags-\(getpid())"
      try Tmux.start(
        session, columns: 120, utf8: true, environment: library, "\(Splay.binary) play '\(music)'; sleep 30")
      defer { Tmux.end(session) }
      _ = try Tmux.waitForScreen(session) { $0.contains("splay — playing") && $0.contains("track 1/3") }
      try Tmux.run(["send-keys", "-t", session, "/"])
      _ = try Tmux.waitForScreen(session) { $0.contains("find in the queue") }
      try Tmux.run(["send-keys", "-t", session, "-l", "bachelor"])
      // Found by its title once the index answered: the prompt is searched again then, no key needed.
      let found = try Tmux.waitForScreen(session) { $0.contains("/bachelor") && $0.contains("1 of 1: #3") }
      #expect(found.contains("track 1/3"), "typing plays nothing")
      try Tmux.run(["send-keys", "-t", session, "Enter"])
      _ = try Tmux.waitForScreen(session) { $0.contains("track 3/3") && $0.contains("Bachelorette") }
      try Tmux.run(["send-keys", "-t", session, "/"])
      try Tmux.run(["send-keys", "-t", session, "-l", "joga bjork"])
      _ = try Tmux.waitForScreen(session) { $0.contains("/joga bjork") && $0.contains("1 of 1: #2") }
      try Tmux.run(["send-keys", "-t", session, "Escape", "q"])
    }
  }

  /// With the server stopped, a pause cannot be confirmed: the clock holds where it was when the key was
  /// pressed (it ran 0:01 -> 0:05 while "pausing…"), and once the server continues the late confirmation is
  /// shown as such.
  @Test func theClockHoldsWhileAFrozenServerLeavesAPauseUnconfirmed() async throws {
    try await ExclusiveSink.run {
      let session = "splay-frozen-\(getpid())"
      try Self.playTheSweep(in: session, columns: 100, deadline: 1)
      defer { Tmux.end(session) }
      let server = try Self.sandboxPID()
      kill(server, SIGSTOP)
      var continued = false
      defer { if !continued { kill(server, SIGCONT) } }
      try Tmux.run(["send-keys", "-t", session, " "])
      let pausing = try Tmux.waitForScreen(session) { $0.contains("pausing…") }
      let clock = Self.clock(in: pausing)
      try await Task.sleep(for: .seconds(2))
      let later = try Tmux.capture(session)
      #expect(later.contains("splay — playing"), "nothing was confirmed")
      #expect(
        Self.clock(in: later) == clock, "the clock ran on without the server: \(clock) -> \(Self.clock(in: later))")
      // The deadline passes (and the re-read of the real state finds no answer either).
      let timedOut = try Tmux.waitForScreen(session) { $0.contains("not confirmed within") }
      #expect(timedOut.contains("splay — playing") && Self.clock(in: timedOut) == clock)
      kill(server, SIGCONT)
      continued = true
      let paused = try Tmux.waitForScreen(session) { $0.contains("splay — paused") }
      #expect(paused.contains("the server confirmed it after the deadline"), "\(paused)")
    }
  }

  /// The `M:SS / M:SS` of the progress line.
  /// The view fits the terminal at any width, by display columns: wide characters and emoji in the title,
  /// no line wrapped, and nothing stale after the terminal shrinks (the key line was left twice).
  @Test func theViewFitsFortyHundredAndTwoHundredColumnsWithWideCharacters() async throws {
    try await ExclusiveSink.run {
      let scratch = try ScratchDirectory()
      let title = "日本語のとても長いタイトル 🎵🎶 und ein sehr langer Name, der nicht passt"
      try ToneTracks.write(step: 2, to: scratch.path + "/\(title).wav", quarters: 60)
      let session = "splay-width-\(getpid())"
      try Tmux.start(session, columns: 40, utf8: true, "\(Splay.binary) play '\(scratch.path)'; sleep 30")
      defer { Tmux.end(session) }
      _ = try Tmux.waitForScreen(session) { $0.contains("splay — playing") }
      for columns in [40, 100, 200, 40] {
        try Tmux.run(["resize-window", "-t", session, "-x", "\(columns)", "-y", "20"])
        // A frame drawn for the new width: seven lines (tmux reflows the old frame first), the bar spanning it.
        let screen = try Tmux.waitForScreen(session) { screen in
          let used = screen.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
          return used.count == 7
            && used.contains { $0.hasPrefix("[") && DisplayWidth.columns(of: String($0)) == columns }
        }
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let used = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(used.first?.hasPrefix("splay — playing") == true, "\(columns): \(screen)")
        #expect(used.count == 7, "\(columns) columns: seven lines, none wrapped, none stale:\n\(screen)")
        #expect(used.filter { $0.hasPrefix("space pause") }.count == 1, "\(columns): \(screen)")
        for line in used {
          #expect(DisplayWidth.columns(of: line) <= columns, "\(columns): '\(line)'")
        }
        let bar = try #require(used.first { $0.hasPrefix("[") }, "\(screen)")
        #expect(DisplayWidth.columns(of: bar) == columns, "the bar spans the width: '\(bar)'")
        if columns >= 100 { #expect(screen.contains("日本語のとても長いタイトル 🎵🎶"), "\(screen)") }
        #expect(screen.contains("WAV, 16-bit, 44.1 kHz, stereo"), "\(screen)")
      }
    }
  }

  /// Two keys while the server is frozen: both commands show as pending (one slot kept only the last), and
  /// once the server answers both settle and the view shows what it confirmed.
  @Test func everyCommandInFlightShowsUntilItSettles() async throws {
    try await ExclusiveSink.run {
      let session = "splay-two-keys-\(getpid())"
      try Self.playTheSweep(in: session, columns: 120, deadline: 5)
      defer { Tmux.end(session) }
      let server = try Self.sandboxPID()
      kill(server, SIGSTOP)
      var continued = false
      defer { if !continued { kill(server, SIGCONT) } }
      try Tmux.run(["send-keys", "-t", session, "Right"])
      _ = try Tmux.waitForScreen(session) { $0.contains("seeking +5 s…") }
      try Tmux.run(["send-keys", "-t", session, " "])
      let both = try Tmux.waitForScreen(session) { $0.contains("pausing…") }
      #expect(both.contains("seeking +5 s…, pausing…"), "both commands in flight show: \(both)")
      kill(server, SIGCONT)
      continued = true
      let paused = try Tmux.waitForScreen(session) { $0.contains("splay — paused") && !$0.contains("…") }
      #expect(Self.clock(in: paused).hasPrefix("0:0"), "\(paused)")
    }
  }

  /// Starts `splay play` on the 30 s sweep in a new tmux session and waits until its clock shows 0:01.
  private static func playTheSweep(in session: String, columns: Int, deadline: Int) throws {
    try Tmux.start(
      session, columns: columns,
      "\(Splay.binary) play --deadline \(deadline) \(Splay.fixture("media/sweep-30s.flac")); sleep 30")
    _ = try Tmux.waitForScreen(session) { $0.contains("splay — playing") && $0.contains(" 0:01 / 0:30") }
  }

  /// The private server's process, to freeze (SIGSTOP) and thaw.
  private static func sandboxPID() throws -> pid_t {
    let found = try PulseEnvironment.run(Splay.root + "/scripts/pulse-sandbox", ["pid"])
    return try #require(pid_t(found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  /// At 80 columns a file that could not be played, deep in a long folder, still shows its name and the reason:
  /// the path is shortened from its start. A damaged file that played in part is a problem, not "skipped".
  @Test func aProblemLineKeepsTheFileNameAndTheReasonAt80Columns() async throws {
    try await ExclusiveSink.run {
      let scratch = try ScratchDirectory()
      let deep = scratch.path + "/" + String(repeating: "a very long folder name/", count: 4)
      try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
      try Data("not audio at all".utf8).write(to: URL(fileURLWithPath: deep + "/garbage.flac"))
      try ToneTracks.write(step: 2, to: scratch.path + "/tone.wav", quarters: 40)
      let session = "splay-problem-\(getpid())"
      try Tmux.start(
        session, columns: 80, utf8: true,
        "\(Splay.binary) play '\(scratch.path)/tone.wav' '\(deep)/garbage.flac'; sleep 30")
      defer { Tmux.end(session) }
      let screen = try Tmux.waitForScreen(session) { $0.contains("problem: ") }
      let line = try #require(screen.split(separator: "\n").first { $0.hasPrefix("problem: ") }, "\(screen)")
      #expect(line.contains("…"), "the path is shortened: '\(line)'")
      #expect(line.contains("garbage.flac: cannot decode"), "the name and the reason stay: '\(line)'")
      #expect(DisplayWidth.columns(of: String(line)) <= 80, "'\(line)'")
    }
  }

  /// With the list of files piped in (`splay play -`), the view reads its keys from the terminal itself.
  @Test func aListOnStdinLeavesTheKeysToTheTerminal() async throws {
    try await ExclusiveSink.run {
      let session = "splay-stdin-\(getpid())"
      let command = "printf '%s\\n' '\(Splay.fixture("media/sweep-30s.flac"))' | \(Splay.binary) play -; sleep 30"
      try Tmux.start(session, utf8: true, command)
      defer { Tmux.end(session) }
      _ = try Tmux.waitForScreen(session) { $0.contains("splay — playing") }
      try Tmux.run(["send-keys", "-t", session, " "])
      let paused = try Tmux.waitForScreen(session) { $0.contains("splay — paused") }
      #expect(paused.contains("Sweep 30 s"))
      try Tmux.run(["send-keys", "-t", session, "q"])
    }
  }

  /// Ctrl-Z pauses (a stopped process cannot confirm anything), gives the terminal back and stops the
  /// process; `fg` redraws the view, still paused. Ctrl-C then exits 130. Run from an interactive shell, as a
  /// person would: a process group without a job-control shell is orphaned, and the kernel drops its SIGTSTP.
  @Test func ctrlZPausesAndSuspendsAndFgRedraws() async throws {
    try await ExclusiveSink.run {
      let scratch = try ScratchDirectory()
      let file = scratch.path + "/suspend-me.wav"
      try ToneTracks.write(step: 3, to: file, quarters: 80)
      let session = "splay-suspend-\(getpid())"
      let status = scratch.path + "/status"
      try Tmux.start(session, utf8: true, "/bin/bash --norc -i")
      defer { Tmux.end(session) }
      try Tmux.run(["send-keys", "-t", session, "\(Splay.binary) play '\(file)'", "Enter"])
      _ = try Tmux.waitForScreen(session) { $0.contains("splay — playing") }
      let pid = try #require(Self.pid(of: file), "the splay process")
      try Tmux.run(["send-keys", "-t", session, "C-z"])
      var stopped = false
      for _ in 0..<250 where !stopped {
        stopped = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.contains(") T ") == true
        if !stopped { usleep(20_000) }
      }
      #expect(stopped, "the process is stopped after Ctrl-Z")
      _ = try Tmux.waitForScreen(session) { $0.contains("Stopped") }
      try Tmux.run(["send-keys", "-t", session, "fg", "Enter"])
      let back = try Tmux.waitForScreen(session) { $0.contains("splay — paused") && $0.contains("space pause") }
      #expect(!back.contains("Stopped"), "redrawn from a clear screen:\n\(back)")
      try Tmux.run(["send-keys", "-t", session, "C-c"])
      // `$?` after `fg` is the job's exit status.
      try Tmux.run(["send-keys", "-t", session, "echo $? > '\(status)'", "Enter"])
      let code = try #require(FileAppearance.lines(at: status), "the shell wrote the status")
        .trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(code == "130", "Ctrl-C exits 130")
    }
  }

  /// The view draws when something changed, not on a clock: while playing when the clock or the bar moves,
  /// while paused not at all, so a paused player leaves the terminal and the CPU alone. The frames the pane
  /// receives are counted (`pipe-pane`; each starts by homing the cursor), and the paused player's threads
  /// must not wake, libpulse's aside (see ServeQuietTests), once the pause's deadline (1 s here) has come up
  /// and a resize was drawn.
  @Test func thePausedViewWritesNothingAndThePlayingViewOnlyWhatMoved() async throws {
    try await ExclusiveSink.run {
      let session = "splay-quiet-\(getpid())"
      let scratch = try ScratchDirectory()
      let output = scratch.path + "/pane"
      // 40 columns: a bar of 24 cells, one per 1.25 s of the 30 s sweep.
      try Tmux.start(
        session, columns: 40, rows: 12,
        "\(Splay.binary) play --deadline 1 \(Splay.fixture("media/sweep-30s.flac")); sleep 30")
      defer { Tmux.end(session) }
      try Tmux.run(["pipe-pane", "-o", "-t", session, "cat >> '\(output)'"])
      _ = try Tmux.waitForScreen(session) { $0.contains("splay — playing") && $0.contains(" 0:01 / 0:30") }
      let frames = { () -> Int in
        let bytes = FileManager.default.contents(atPath: output) ?? Data()
        return bytes.split(separator: 0x1B, omittingEmptySubsequences: false).count {
          $0.starts(with: Array("[H".utf8))
        }
      }
      let start = frames()
      try await Task.sleep(for: .seconds(3))
      let drawn = frames() - start
      // Three seconds: three clock changes and two or three cells of the bar; a 100 ms tick drew 30 frames.
      #expect((1...8).contains(drawn), "\(drawn) frames in 3 s of playing")
      try Tmux.run(["send-keys", "-t", session, " "])
      _ = try Tmux.waitForScreen(session) { $0.contains("splay — paused") }
      // A resize while paused (SIGWINCH): the signal's handler must not start a thread that stays awake.
      try Tmux.run(["resize-window", "-t", session, "-x", "44"])
      try await Task.sleep(for: .milliseconds(1200))
      let player = try #require(Tmux.panePID(session).flatMap { Tmux.children(of: $0).first }, "no splay")
      let paused = frames()
      let before = ThreadWakeUps(of: player)
      try await Task.sleep(for: .seconds(2))
      #expect(frames() == paused, "a paused view draws nothing: \(frames() - paused) frames in 2 s")
      let woken = ThreadWakeUps(of: player).since(before, excluding: ["threaded-ml"])
      #expect(woken.isEmpty, "a paused player woke: \(woken)")
      try Tmux.run(["send-keys", "-t", session, "q"])
    }
  }

  /// The volume the view shows (`volume 40%`), or nil.
  private static func volume(on screen: String) -> Int? {
    guard let range = screen.range(of: #"volume \d+%"#, options: .regularExpression) else { return nil }
    return Int(screen[range].dropFirst("volume ".count).dropLast())
  }

  /// The pid of the `splay play` whose command line names `file`.
  private static func pid(of file: String) -> Int32? {
    for _ in 0..<100 {
      for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = Int32(entry),
          let line = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8),
          line.hasPrefix(Splay.binary), line.contains(file)
        else { continue }
        return pid
      }
      usleep(20_000)
    }
    return nil
  }

  private static func clock(in screen: String) -> String {
    guard let range = screen.range(of: #"\d+:\d\d / \d+:\d\d"#, options: .regularExpression) else { return "" }
    return String(screen[range])
  }
}

enum Tmux {
  static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

  /// Runs a tmux command; the first one starts the tmux server, hence `runDetached`. A new session is tried
  /// again: right after the previous test killed the last session, its server is still exiting, and a client
  /// that reaches it then fails ("server exited unexpectedly"; seen once on pulse-plain).
  static func run(_ arguments: [String], output: String = "/dev/null") throws {
    let attempts = arguments.contains("new-session") ? 5 : 1
    for attempt in 1...attempts {
      if try PulseEnvironment.runDetached(["tmux"] + arguments, output: output) == 0 { return }
      if attempt < attempts { usleep(100_000) }
    }
    throw POSIXError(.EIO)
  }

  /// Starts `command` in a detached session `session` of `columns` × `rows`, playing to the test's server:
  /// `utf8` starts tmux in UTF-8 mode (`-u`, `LANG=C.UTF-8`); `environment` adds `NAME=value`s.
  static func start(
    _ session: String, columns: Int = 100, rows: Int = 20, utf8: Bool = false, environment: [String] = [],
    _ command: String
  ) throws {
    let variables = (utf8 ? ["LANG=C.UTF-8"] : []) + environment + ["PULSE_SERVER=\(PulseEnvironment.server ?? "")"]
    try run(
      (utf8 ? ["-u"] : []) + ["new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)"]
        + variables.flatMap { ["-e", $0] } + [command])
  }

  /// Kills `session` and makes sure the processes its pane ran are gone before the next test records the sink:
  /// a splay still playing after its test released the sink was heard in the next test's recording (the
  /// pane's shell and player outlived `kill-session` in the test runs). They get the hang-up a closed
  /// terminal gives, then SIGKILL after 3 s, which is reported: splay must end on a hang-up.
  static func end(_ session: String) {
    let pane = panePID(session)
    let children = pane.map(Self.children(of:)) ?? []
    _ = try? run(["kill-session", "-t", session])
    for pid in children + (pane.map { [$0] } ?? []) where running(pid) { kill(pid, SIGHUP) }
    for _ in 0..<150 where children.contains(where: running) { usleep(20_000) }
    for pid in children where running(pid) {
      let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
      print("Tmux.end: \(command.replacingOccurrences(of: "\u{0}", with: " ")) ignored a hang-up for 3 s; killed")
      kill(pid, SIGKILL)
    }
  }

  /// The pid of the process `session`'s pane runs (the shell), or nil.
  static func panePID(_ session: String) -> Int32? {
    let file = "/tmp/\(session).pane"
    defer { try? FileManager.default.removeItem(atPath: file) }
    return (try? run(["display-message", "-p", "-t", session, "#{pane_pid}"], output: file)).flatMap { _ in
      (try? String(contentsOfFile: file, encoding: .utf8)).flatMap {
        Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
      }
    }
  }

  /// Whether `pid` still runs: not gone, and not a zombie (this container's init reaps orphans late).
  private static func running(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return false }
    return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
  }

  /// The processes whose parent is `parent` (from /proc).
  static func children(of parent: Int32) -> [Int32] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry -> Int32? in
      guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return nil }
      // After "pid (comm) state ppid": the comm may hold spaces, so fields are counted after the last ')'.
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
    }
  }

  static func capture(_ session: String) throws -> String {
    let file = "/tmp/\(session).screen"
    try run(["capture-pane", "-p", "-t", session], output: file)
    defer { try? FileManager.default.removeItem(atPath: file) }
    return try String(contentsOfFile: file, encoding: .utf8)
  }

  /// Polls the screen until `condition` holds (10 s at most) and returns it.
  static func waitForScreen(_ session: String, _ condition: (String) -> Bool) throws -> String {
    var screen = ""
    for _ in 0..<200 {
      screen = try capture(session)
      if condition(screen) { return screen }
      usleep(50_000)
    }
    Issue.record("the screen never matched; it shows:\n\(screen)")
    return screen
  }
}
