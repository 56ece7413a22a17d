import AudioTestSupport
import Foundation
import Testing

/// `config.toml` as a user writes it: `splay config` reports it, every command stops at a mistake in it with the
/// line, its settings apply, and the command line wins over them.
@Suite struct ConfigFileTests {
  /// A scratch `XDG_CONFIG_HOME` whose `splay/config.toml` holds `text`.
  final class ConfigHome {
    let scratch: ScratchDirectory
    let file: String
    var environment: [String: String] { ["XDG_CONFIG_HOME": scratch.path] }

    init(_ text: String) throws {
      scratch = try ScratchDirectory("splay-config")
      try FileManager.default.createDirectory(atPath: scratch.path + "/splay", withIntermediateDirectories: true)
      file = scratch.path + "/splay/config.toml"
      try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    }
  }

  private static let short = Splay.fixture("media/short-44k-stereo.flac")

  @Test func theReportNamesEachSettingsSource() throws {
    let home = try ConfigHome("# mine\nserver = \"unix:/tmp/splay-nowhere\"\nvolume = 40\nsocket = \"/tmp/s.sock\"\n")
    let result = try Splay.run(["config"], environment: home.environment)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "# " + home.file)
    func row(_ key: String) -> String? { lines.first { $0.hasPrefix(key + " = ") } }
    #expect(row("server")?.hasSuffix("# config.toml:2") == true, "\(lines)")
    #expect(row("volume")?.hasSuffix("# config.toml:3") == true)
    #expect(row("socket")?.hasPrefix("socket = \"/tmp/s.sock\"") == true)
    #expect(row("output")?.hasSuffix("# default") == true)
    #expect(row("deadline")?.hasPrefix("deadline = 3 ") == true)
    #expect(row("mpris")?.hasPrefix("mpris = true ") == true)
    // The report is a config file itself.
    let again = try ConfigHome(result.stdout)
    #expect(try Splay.run(["config"], environment: again.environment).status == 0)
  }

  /// The README's example config is a config splay takes, key for key.
  @Test func theReadmesExampleIsAValidConfig() throws {
    let readme = try String(contentsOfFile: Splay.root + "/README.md", encoding: .utf8)
    let start = try #require(readme.range(of: "```toml\n"))
    let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
    let home = try ConfigHome(String(readme[start.upperBound..<end.lowerBound]))
    let result = try Splay.run(["config"], environment: home.environment)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout.split(separator: "\n").filter { $0.contains("# config.toml:") }.count == 14, "\(result.stdout)")
  }

  @Test func withoutAFileEverySettingIsTheDefault() throws {
    let home = try ConfigHome("")
    try FileManager.default.removeItem(atPath: home.file)
    let result = try Splay.run(["config"], environment: home.environment)
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("# \(home.file) (not found: every setting is the default)\n"))
  }

  /// Every command that reads the file stops at a mistake in it: status 2, one line naming the file and line.
  @Test(arguments: [
    ["config"], ["play", "--output", "simulated", "fixtures/media/short-44k-stereo.flac"],
    ["run", "--output", "simulated", "fixtures/scripts/seek.splay"], ["serve", "--socket", "/tmp/splay-unused.sock"],
    ["ctl", "--socket", "/tmp/splay-unused.sock", "status"],
  ])
  func aMistakeStopsTheCommandNamingTheLine(arguments: [String]) throws {
    let home = try ConfigHome("output = \"simulated\"\nvolum = 40\n")
    let result = try Splay.run(arguments, environment: home.environment, timeout: 10)
    #expect(result.status == 2)
    #expect(result.stderr == "splay: \(home.file):2: unknown key 'volum' (did you mean 'volume'?)\n")
    #expect(result.stdout.isEmpty)
  }

  @Test func theConfigsOutputAndVolumeApplyAndTheCommandLineWins() throws {
    let home = try ConfigHome("output = \"simulated\"\nvolume = 40\n")
    let configured = try Splay.run(["play", "--json", Self.short], environment: home.environment)
    #expect(configured.status == 0, "\(configured.stderr)")
    #expect(configured.jsonLines.last?["volume"] as? Int == 40)
    #expect(configured.statuses.last == "ended", "played on the simulated output, in virtual time")
    let overridden = try Splay.run(["play", "--json", "--volume", "60", Self.short], environment: home.environment)
    #expect(overridden.jsonLines.last?["volume"] as? Int == 60)
  }

  /// The configured server is the one connected to (over `PULSE_SERVER`); `--output` on the command line wins.
  @Test func theConfigsServerIsUsedAndOutputOnTheCommandLineWins() throws {
    let home = try ConfigHome("server = \"unix:/nonexistent/splay-config-test\"\n")
    let refused = try Splay.run(["play", Self.short], environment: home.environment)
    #expect(refused.status == 4)
    #expect(refused.stderr.contains("unix:/nonexistent/splay-config-test"), "\(refused.stderr)")
    let simulated = try Splay.run(
      ["play", "--json", "--output", "simulated", Self.short], environment: home.environment)
    #expect(simulated.status == 0, "\(simulated.stderr)")
  }

  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server"))
  func aConfiguredServerPlaysWhenPULSE_SERVERPointsElsewhere() async throws {
    // It plays into the sink: not beside a test that records it.
    try await ExclusiveSink.run { try configuredServerPlays() }
  }

  private func configuredServerPlays() throws {
    let server = try #require(PulseEnvironment.server)
    let home = try ConfigHome("server = \"\(server)\"\nsink = \"\(PulseEnvironment.sink)\"\n")
    let environment = home.environment.merging(["PULSE_SERVER": "unix:/nonexistent/splay-env"]) { $1 }
    let result = try Splay.run(["play", "--json", Self.short], environment: environment)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.playedToTheEnd)
    let wrongSink = try ConfigHome("server = \"\(server)\"\nsink = \"splay_no_such_sink\"\n")
    let refused = try Splay.run(["play", Self.short], environment: wrongSink.environment)
    #expect(refused.status == 4, "\(refused.stderr)")
    #expect(refused.stderr.contains("has no sink named 'splay_no_such_sink'"), "\(refused.stderr)")
  }

  /// A config that names the output decides before anything connects: `splay play` begins connecting before
  /// its arguments are parsed, and must not touch the server `PULSE_SERVER` names when the config chose another
  /// output (or server).
  @Test func aConfiguredOutputKeepsTheEarlyConnectionFromTheDefaultServer() throws {
    let server = try SilentSocket()
    for text in [
      "output = \"simulated\"\n", "  'output'=\"simulated\"\n# volume = 5\n",
      "on-state = '''\n[ -n \"$X\" ] && echo\n'''\noutput = \"simulated\"\n",
    ] {
      let home = try ConfigHome(text)
      let environment = home.environment.merging(["PULSE_SERVER": "unix:" + server.path]) { $1 }
      let result = try Splay.run(["play", "--json", Self.short], environment: environment)
      #expect(result.status == 0, "\(text): \(result.stderr)")
      #expect(server.takeConnections() == 0, "\(text): connected to the sound server before the parse")
    }
  }

  /// `serve` listens where the config says, and `ctl` finds it there.
  @Test func serveAndCtlMeetAtTheConfiguredSocket() throws {
    let home = try ConfigHome("")
    let socket = home.scratch.path + "/control.sock"
    try Data("output = \"simulated\"\nsocket = \"\(socket)\"\n".utf8).write(to: URL(fileURLWithPath: home.file))
    let serve = try ChildProcess(
      [Splay.binary, "serve"], environment: ProcessInfo.processInfo.environment.merging(home.environment) { $1 })
    defer {
      serve.terminate()
      _ = serve.wait(timeout: 5)
    }
    #expect(ControlClient.waitForListener(at: socket))
    let status = try Splay.run(["ctl", "--json", "status"], environment: home.environment)
    #expect(status.status == 0, "\(status.stderr)")
    #expect(status.stdout.contains("\"idle\""), "\(status.stdout)")
  }
}
