import AudioTestSupport
import Foundation
import Testing

/// `splay play --volume 40` as the first stream of a server that has just started: on PipeWire the session
/// manager (WirePlumber) is still settling then, and once the stream played at 100 % while splay said 40 %.
/// Each run starts a private server of the flavour under test in a folder of its own, so the suite's server is
/// not touched; PipeWire's runs many times at its default 48 kHz graph (`SPLAY_FRESH_SERVER_RUNS`), the others
/// twice: the session manager's settling does not depend on the graph's rate.
@Suite(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct FreshServerVolumeTests {
  static let runs =
    ProcessInfo.processInfo.environment["SPLAY_FRESH_SERVER_RUNS"].flatMap(Int.init)
    ?? (PulseEnvironment.flavour == "pipewire" && graphRate == "48000" ? 12 : 2)
  private static let graphRate = ProcessInfo.processInfo.environment["SPLAY_SANDBOX_RATE"] ?? "48000"

  @Test func anExplicitVolumeIsTheFirstStreamsVolumeOnAFreshServer() async throws {
    for run in 1...Self.runs {
      let outcome = try await playOnAFreshServer(volume: 40)
      #expect(
        outcome.server == 40, "run \(run): the server played the stream at \(outcome.server.map(String.init) ?? "no") %"
      )
      #expect(outcome.state == 40, "run \(run): splay's last state said \(outcome.state.map(String.init) ?? "no") %")
    }
  }

  /// Starts a fresh server, plays with `--volume` for 1.5 s, and returns the stream's volume at the server at
  /// the end and the volume of splay's last state.
  private func playOnAFreshServer(volume: Int) async throws -> (server: Int?, state: Int?) {
    let scratch = try ScratchDirectory("splay-fresh")
    // The plain null sink itself: building the truth sink for each run is not what is tested here.
    let sandbox = [
      "/usr/bin/env", "SPLAY_SANDBOX_DIR=\(scratch.path)/sandbox", "SPLAY_TRUTH_SINK=0",
      Splay.root + "/scripts/pulse-sandbox",
    ]
    let address = scratch.path + "/address"
    #expect(try PulseEnvironment.runDetached(sandbox + ["start"], output: address) == 0, "the server did not start")
    defer {
      _ = try? PulseEnvironment.runDetached(sandbox + ["stop"])
      withExtendedLifetime(scratch) {}
    }
    let line = try String(contentsOfFile: address, encoding: .utf8)
    let server = try #require(
      line.split(separator: "\n").last { $0.hasPrefix("PULSE_SERVER=") }?.dropFirst("PULSE_SERVER=".count))
    var environment = ProcessInfo.processInfo.environment
    environment["PULSE_SERVER"] = String(server)
    let child = try ChildProcess(
      [Splay.binary, "play", "--no-mpris", "--json", "--volume", "\(volume)", Splay.fixture("media/sweep-30s.flac")],
      environment: environment, stdout: scratch.path + "/stdout", stderr: scratch.path + "/stderr")
    // Until splay plays, then a window for the session manager, which may still be settling the new stream.
    let playing = try await waitFor(within: 10) {
      let states = (try? String(contentsOfFile: scratch.path + "/stdout", encoding: .utf8)) ?? ""
      let streams = try PulseEnvironment.run(
        "/usr/bin/pactl", ["list", "short", "sink-inputs"], environment: environment)
      return states.contains("\"status\":\"playing\"") && !streams.stdout.isEmpty
    }
    #expect(
      playing,
      "splay did not play on the fresh server: \((try? String(contentsOfFile: scratch.path + "/stderr", encoding: .utf8)) ?? "")"
    )
    try await Task.sleep(for: .seconds(1))
    let listing = try PulseEnvironment.run("/usr/bin/pactl", ["list", "sink-inputs"], environment: environment).stdout
    child.terminate()
    _ = child.wait(timeout: 5)
    let heard = listing.split(separator: "\n").first { $0.contains("Volume: front-left") }.flatMap { line in
      line.split(separator: "/").dropFirst().first.flatMap { Int($0.trimmingCharacters(in: .whitespaces).dropLast()) }
    }
    let output = (try? String(contentsOfFile: scratch.path + "/stdout", encoding: .utf8)) ?? ""
    let states = output.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    let last = states.last { $0["volume"] != nil }?["volume"] as? Int
    return (heard, last)
  }
}
