import AudioTestSupport
import Foundation
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
      try Tmux.run([
        "new-session", "-d", "-s", session, "-x", "100", "-y", "20", "-e",
        "PULSE_SERVER=\(PulseEnvironment.server ?? "")", command,
      ])
      defer { _ = try? Tmux.run(["kill-session", "-t", session]) }
      // The bar fills as the confirmed position is interpolated: wait for its first step.
      let playing = try Tmux.waitForScreen(session) { $0.contains("splay — playing") && $0.contains("[=") }
      #expect(playing.contains("Sweep 30 s"))
      #expect(playing.contains("sweep-30s.flac"))
      #expect(playing.contains("0:30"))
      #expect(playing.contains("q quit"))
      try Tmux.run(["send-keys", "-t", session, " "])
      let paused = try Tmux.waitForScreen(session) { $0.contains("splay — paused") }
      #expect(paused.contains("volume 100%"))
      try Tmux.run(["send-keys", "-t", session, "+"])
      _ = try Tmux.waitForScreen(session) { $0.contains("volume 100%") || $0.contains("volume 95%") }
      try Tmux.run(["send-keys", "-t", session, "-"])
      _ = try Tmux.waitForScreen(session) { $0.contains("volume 95%") }
      try Tmux.run(["send-keys", "-t", session, "q"])
      let stty = "/tmp/\(session).stty"
      for _ in 0..<300 where !FileManager.default.fileExists(atPath: stty) { usleep(10_000) }
      let settings = try String(contentsOfFile: stty, encoding: .utf8)
      try? FileManager.default.removeItem(atPath: stty)
      #expect(settings.contains(" icanon") && settings.contains(" echo"), "the terminal is back in cooked mode")
      let after = try Tmux.capture(session)
      #expect(!after.contains("\u{1B}[?25l"), "the cursor is shown again")
    }
  }
}

enum Tmux {
  static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

  /// Runs a tmux command; the first one starts the tmux server, hence `runDetached`.
  static func run(_ arguments: [String], output: String = "/dev/null") throws {
    guard try PulseEnvironment.runDetached(["tmux"] + arguments, output: output) == 0 else { throw POSIXError(.EIO) }
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
