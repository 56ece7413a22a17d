import AudioTestSupport
import Foundation
import Testing

/// A `splay serve` that has nothing to do does not wake: idle, or paused with a track open, on the real server
/// and on a session bus as users run it. libpulse's own thread is left out of the count: it wakes whenever the
/// server announces a stream, and the other tests' streams come and go on the same server. The count starts
/// once the last command's deadline has come up: its timer wakes the process that once (ContinuousDeadlines
/// leaves it armed, which a command's reply would otherwise pay for).
@Suite(
  .enabled(
    if: SessionBus.missing == nil && PulseEnvironment.available,
    "needs the private PulseAudio server of `make test`, dbus and playerctl"))
struct ServeQuietTests {
  /// Longer than a second: libdispatch's pool monitor, which Swift concurrency's global executor starts, wakes
  /// once a second and would show at least twice.
  static let window = Duration.milliseconds(2500)

  @Test func anIdleAndAPausedServeDoNotWake() async throws {
    try await ExclusiveSink.run {
      let bus = try SessionBus()
      let server = try Server(output: "pulse", extra: ["--deadline", "1"], environment: bus.environment)
      #expect(bus.waitForPlayer())
      try await Task.sleep(for: .milliseconds(500))
      let idle = try await wakeUps(of: server)
      #expect(idle.isEmpty, "an idle serve woke: \(idle)")

      // A folder: walking it runs off the event loop, on a queue that must not leave a thread awake either.
      let folder = try ScratchDirectory("splay-quiet")
      try FileManager.default.createSymbolicLink(
        atPath: folder.path + "/sweep.flac", withDestinationPath: MPRISTests.sweep)
      try MPRISTests.ctl(server, "load", folder.path)
      try MPRISTests.ctl(server, "play")
      try await Task.sleep(for: .milliseconds(300))
      #expect(try MPRISTests.ctl(server, "pause")?["status"] as? String == "paused")
      try await Task.sleep(for: .milliseconds(1300))
      let paused = try await wakeUps(of: server)
      #expect(paused.isEmpty, "a paused serve woke: \(paused)")
    }
  }

  /// The wake-ups of `server`'s threads but libpulse's over ``window``.
  private func wakeUps(of server: Server) async throws -> [String: Int] {
    let before = ThreadWakeUps(of: server.process.pid)
    try await Task.sleep(for: Self.window)
    return ThreadWakeUps(of: server.process.pid).since(before, excluding: ["threaded-ml"])
  }
}
