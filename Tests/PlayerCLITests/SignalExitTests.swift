import AudioTestSupport
import Foundation
import Testing

/// How `splay` ends on a signal: `serve` quits cleanly (exit 0) at once, `play` and `run` exit with the
/// documented 128 + the signal's number. (splay's handlers are dispatch sources, which read the signals through a
/// signalfd: a signal must stay blocked in every thread, as the main thread's dispatch_main keeps it, or a thread
/// that does not block it lets the kernel discard it under SIG_IGN. Unblocking them at start lost SIGTERMs.)
@Suite struct SignalExitTests {
  /// Idle, and playing on the real server with MPRIS on a private bus: a SIGTERM ends `serve` with 0 well within
  /// a second (1.4–1.9 s were seen; ChildProcess would kill it after 5).
  @Test(arguments: [false, true])
  func serveQuitsAtOnceOnSIGTERM(playing: Bool) async throws {
    let real = playing && PulseEnvironment.available
    // Playing on the real server, the sink is held: other tests judge what it plays.
    func check() throws {
      let bus = SessionBus.missing == nil ? try SessionBus() : nil
      let server = try Server(output: real ? "pulse" : "simulated", environment: bus?.environment ?? [:])
      if playing {
        _ = try Splay.run(["ctl", "--socket", server.path, "load", Splay.fixture("media/sweep-30s.flac")])
        _ = try Splay.run(["ctl", "--socket", server.path, "play"])
      }
      let sent = Date()
      kill(server.process.pid, SIGTERM)
      let status = server.process.wait(timeout: 1)
      #expect(status == 0, "serve exits 0 within 1 s of SIGTERM (took \(Date().timeIntervalSince(sent)) s)")
    }
    if real { try await ExclusiveSink.run { try check() } } else { try check() }
  }

  /// `play --json` (not on a terminal) and `run`: SIGTERM exits 143, SIGINT 130, SIGHUP 129, as --help says.
  /// On the real server: the simulated output plays in virtual time, over before a signal could come.
  @Test(
    .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"),
    arguments: [[SIGTERM, 143], [SIGINT, 130], [SIGHUP, 129]] as [[Int32]])
  func playAndRunExitWithTheDocumentedCode(pair: [Int32]) async throws {
    try await ExclusiveSink.run { try playAndRunExit(signal: pair[0], code: pair[1]) }
  }

  /// One case of the test above, with the sink held.
  private func playAndRunExit(signal: Int32, code: Int32) throws {
    let scratch = try ScratchDirectory("splay-signal")
    let script = scratch.path + "/long.splay"
    try "load \(Splay.fixture("media/sweep-30s.flac"))\nplay\nwait 30\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    for arguments in [
      ["play", "--json", Splay.fixture("media/sweep-30s.flac")],
      ["run", script],
    ] {
      let child = try ChildProcess([Splay.binary] + arguments, stdout: scratch.path + "/out")
      // Until it has said something: its handlers are in place before the first state is printed.
      for _ in 0..<500 where ((try? String(contentsOfFile: scratch.path + "/out", encoding: .utf8)) ?? "").isEmpty {
        usleep(10_000)
      }
      kill(child.pid, signal)
      #expect(child.wait(timeout: 5) == code, "\(arguments[0]) on signal \(signal)")
    }
  }
}
