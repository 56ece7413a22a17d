import ArgumentParser
import FoundationEssentials
import SplayConfig
import SplayConsole

/// `splay config`: the settings `play`, `run`, `serve` and `ctl` start from, and where each came from.
struct ConfigCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "config",
    abstract: "Show the settings splay starts from and where each came from (config.toml or the default).",
    discussion: """
      splay reads its defaults from $XDG_CONFIG_HOME/splay/config.toml (~/.config/splay/config.toml when \
      XDG_CONFIG_HOME is unset), a TOML file of these keys:
        output = "pulse"        or "simulated"
        server = "unix:/run/user/1000/pulse/native"
        sink = "alsa_output.usb-headset"
        deadline = 3            seconds the server has to confirm a command
        volume = 40             the volume 'splay play' starts at
        socket = "~/splay.sock" where 'serve' listens and 'ctl' connects
        mpris = false           no MPRIS on the session bus
        resume = false          'serve' starts empty, and keeps nothing
        on-track = "notify-send \"$SPLAY_TITLE\""   run on each new track (state JSON on stdin)
        on-state = "~/bin/bar-update"               run on every confirmed state
        replaygain = "auto"     "off", "track", "album", or "auto" (album gain in order, track gain shuffled)
        replaygain-preamp = 3   decibels added to a tagged gain (-15 to 15)
        replaygain-untagged = -6   decibels for files without ReplayGain tags (-15 to 15)
        replaygain-clip = true  let a gain push the tagged peak past full scale (default: lowered to it)
      An option on the command line wins over the file. An unknown key or a bad value is an error naming the \
      file and line, and splay exits 2. The output is itself a valid config file.
      """)

  func run() async throws {
    let config = try ConfigFile.load()
    for line in Self.report(config, environment: ProcessInfo.processInfo.environment) { Console.out(line) }
  }

  /// The report's lines: a header naming the file, then each key as a TOML line (a comment when unset) and its
  /// source.
  static func report(_ config: UserConfig, environment: [String: String]) -> [String] {
    let header: String
    if config.path.isEmpty {
      header = "# no config file: neither XDG_CONFIG_HOME nor HOME is set"
    } else {
      header = "# \(config.path)" + (config.exists ? "" : " (not found: every setting is the default)")
    }
    let file = config.path.split(separator: "/").last.map(String.init) ?? "config.toml"
    func source(_ line: Int?, orDefault note: String = "default") -> String {
      line.map { "\(file):\($0)" } ?? note
    }
    func quoted(_ text: String) -> String { tomlQuoted(text) }
    let defaultSocket = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 + "/splay.sock" }
    let deadline = config.deadline?.value ?? OutputSettings.defaultDeadline
    func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
    let rows: [(setting: String, source: String)] = [
      ("output = " + quoted(config.output?.value ?? OutputKind.pulse.rawValue), source(config.output?.line)),
      (
        config.server.map { "server = " + quoted($0.value) } ?? "# server: $PULSE_SERVER, then the user's server",
        source(config.server?.line)
      ),
      (
        config.sink.map { "sink = " + quoted($0.value) } ?? "# sink: the server's default sink",
        source(config.sink?.line)
      ),
      (
        "deadline = " + number(deadline),
        source(config.deadline?.line)
      ),
      (config.volume.map { "volume = \($0.value)" } ?? "# volume: the server's", source(config.volume?.line)),
      (
        (config.socket?.value ?? defaultSocket).map { "socket = " + quoted($0) }
          ?? "# socket: none ($XDG_RUNTIME_DIR is not set; 'serve' and 'ctl' need --socket)",
        source(config.socket?.line, orDefault: defaultSocket == nil ? "default" : "default ($XDG_RUNTIME_DIR)")
      ),
      ("mpris = \(config.mpris?.value ?? true)", source(config.mpris?.line)),
      ("resume = \(config.resume?.value ?? true)", source(config.resume?.line)),
      (config.onTrack.map { "on-track = " + quoted($0.value) } ?? "# on-track: no hook", source(config.onTrack?.line)),
      (config.onState.map { "on-state = " + quoted($0.value) } ?? "# on-state: no hook", source(config.onState?.line)),
      ("replaygain = " + quoted(config.replayGain?.value ?? "off"), source(config.replayGain?.line)),
      (
        "replaygain-preamp = " + number(config.replayGainPreamp?.value ?? 0), source(config.replayGainPreamp?.line)
      ),
      (
        "replaygain-untagged = " + number(config.replayGainUntagged?.value ?? 0),
        source(config.replayGainUntagged?.line)
      ),
      ("replaygain-clip = \(config.replayGainClip?.value ?? false)", source(config.replayGainClip?.line)),
    ]
    // Aligned, except for the long comments of unset keys.
    let width = rows.map(\.setting.count).filter { $0 <= 36 }.max() ?? 0
    return [header] + rows.map { $0.setting.padding(toLength: width, withPad: " ", startingAt: 0) + "  # " + $0.source }
  }
}
