import AudioTestSupport
import Foundation
import Testing

/// `--on-track` and `--on-state` (and the config's `on-track`, `on-state`): a command run on confirmed states with
/// the state as JSON on its input and SPLAY_* variables, one run at a time with the latest state, never in the way
/// of playback, its failures said and not fatal.
@Suite struct HookTests {
  private static let tracks = ["media/short-44k-stereo.flac", "media/ladder-44k-stereo.wav"].map(Splay.fixture)

  @Test func onTrackRunsOnEachNewTrackWithTheStateAndItsVariables() throws {
    let scratch = try ScratchDirectory("splay-hooks")
    let folder = scratch.path
    let hook =
      "cat > '\(folder)/track-'$SPLAY_INDEX.json; printf '%s|%s|%s|%s' \"$SPLAY_TITLE\" \"$SPLAY_ARTIST\" "
      + "\"$SPLAY_STATUS\" \"$SPLAY_SKIPPED\" > '\(folder)/env-'$SPLAY_INDEX"
    let result = try Splay.run(
      ["play", "--json", "--output", "simulated", "--on-track", hook, "--on-state", "exit 3"] + Self.tracks)
    #expect(result.status == 0, "a failing hook does not change the exit status: \(result.stderr)")
    #expect(result.stderr == "splay: on-state hook failed: exit status 3 (exit 3)\n", "said once, not per state")
    func read(_ name: String) -> String? { try? String(contentsOfFile: folder + "/" + name, encoding: .utf8) }
    // In virtual time the first track may be over before its run starts: then the second run says it skipped it.
    let second = try #require(read("env-2"), "the last track's run")
    if let first = read("env-1") {
      #expect(first == "Short ladder|splay fixtures|stopped|0")
      #expect(second == "ladder-44k-stereo.wav||playing|0")
    } else {
      #expect(second == "ladder-44k-stereo.wav||playing|1", "the first track was skipped and counted")
    }
    let json = try #require(read("track-2.json"))
    let state = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    #expect(state?["index"] as? Int == 1)
    #expect((state?["track"] as? [String: Any])?["path"] as? String == Self.tracks[1])
  }

  /// A hook that is still running when states arrive gets the latest of them next, never two runs at once, and
  /// hears how many it skipped.
  @Test func aSlowHookRunsOneAtATimeWithTheLatestState() throws {
    let scratch = try ScratchDirectory("splay-hooks")
    let log = scratch.path + "/log"
    let lock = scratch.path + "/lock"
    let hook =
      "mkdir '\(lock)' || echo overlap >> '\(log)'; echo \"$SPLAY_VOLUME $SPLAY_SKIPPED\" >> '\(log)'; "
      + "sleep 0.2; rmdir '\(lock)'"
    let server = try Server(extra: ["--on-state", hook])
    let client = try ControlClient(path: server.path)
    for level in 1...10 { client.request(["id": level, "command": "volume", "args": [String(level)]]) }
    for _ in 1...10 { #expect(client.next()?["ok"] as? Bool == true) }
    var lines: [String] = []
    for _ in 0..<300 {
      lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
      if lines.last?.hasPrefix("10 ") == true { break }
      usleep(10_000)
    }
    #expect(lines.last?.hasPrefix("10 ") == true, "the latest state reached the hook: \(lines)")
    #expect(!lines.contains("overlap"), "two runs at once: \(lines)")
    #expect(lines.count < 10, "states were coalesced: \(lines)")
    let skipped = lines.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
    #expect(skipped + lines.count == 10, "every state was run or counted as skipped: \(lines)")
  }

  /// A hook starts as a shell would start it: splay ignores SIGTERM and its threads block signals, but a hook
  /// left running still dies of SIGTERM.
  @Test func aHookStillDiesOfSIGTERM() throws {
    let scratch = try ScratchDirectory("splay-hooks")
    let pidFile = scratch.path + "/pid"
    let server = try Server(extra: ["--on-state", "echo $$ > '\(pidFile)'; exec sleep 30"])
    let client = try ControlClient(path: server.path)
    client.request(["id": 1, "command": "volume", "args": ["20"]])
    #expect(client.next()?["ok"] as? Bool == true)
    var pid: pid_t?
    for _ in 0..<300 {
      pid = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap {
        pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
      }
      if pid != nil { break }
      usleep(10_000)
    }
    let hook = try #require(pid, "the hook did not start")
    kill(hook, SIGTERM)
    var alive = true
    for _ in 0..<200 where alive {
      alive = kill(hook, 0) == 0 && !Self.isZombie(hook)
      if alive { usleep(10_000) }
    }
    #expect(!alive, "the hook survived SIGTERM")
  }

  private static func isZombie(_ pid: pid_t) -> Bool {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    return status.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? true
  }

  /// On the real server, a hook that sleeps 10 s on every state does not hold back a pause's confirmation.
  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func aHookThatSleepsDoesNotDelayAPause() async throws {
    try await ExclusiveSink.run {
      let server = try Server(output: "pulse", extra: ["--on-state", "sleep 10"])
      let client = try ControlClient(path: server.path)
      client.request(["id": 1, "command": "load", "args": [Splay.fixture("media/sweep-30s.flac")]])
      #expect(client.next()?["ok"] as? Bool == true)
      client.request(["id": 2, "command": "play"])
      #expect(client.next()?["ok"] as? Bool == true)
      let sent = MonitorRecorder.now()
      client.request(["id": 3, "command": "pause"])
      let reply = client.next()
      let seconds = Double(MonitorRecorder.now() - sent) / 1e9
      #expect((reply?["state"] as? [String: Any])?["status"] as? String == "paused")
      // The deadline is 3 s; a pause that waited for the hook would take 10.
      #expect(seconds < 3, "the pause was confirmed after \(seconds) s")
    }
  }
}
