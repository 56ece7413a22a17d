import TOMLKit

/// A setting read from the config file: its value and the line that set it.
package struct ConfigValue<Value: Sendable & Equatable>: Sendable, Equatable {
  /// The value, checked.
  package var value: Value
  /// The line of the file that set it, 1-based.
  package var line: Int
}

/// The defaults a person set in `config.toml`, each checked and with the line it came from; a key the file does
/// not set is nil, and the command line or splay's own default decides it.
package struct UserConfig: Sendable, Equatable {
  /// Every key the file may set, in the order `splay config` lists them.
  package static let keys = [
    "output", "server", "sink", "deadline", "volume", "socket", "mpris", "resume", "on-track", "on-state",
    "replaygain", "replaygain-preamp", "replaygain-untagged", "replaygain-clip",
  ]

  /// The ReplayGain modes `replaygain` takes.
  package static let replayGainModes = ["off", "track", "album", "auto"]

  /// The file read; the file need not exist.
  package var path: String
  /// Whether the file exists (a missing file is an empty config).
  package var exists = false
  /// `output`: "pulse" or "simulated".
  package var output: ConfigValue<String>?
  /// `server`: the PulseAudio server address.
  package var server: ConfigValue<String>?
  /// `sink`: the sink to play to.
  package var sink: ConfigValue<String>?
  /// `deadline`: seconds the server has to confirm a command, more than 0 and at most 600.
  package var deadline: ConfigValue<Double>?
  /// `volume`: the volume `splay play` starts at, 0 to 100.
  package var volume: ConfigValue<Int>?
  /// `socket`: the socket `splay serve` listens on and `splay ctl` talks to; `~/` is the home directory.
  package var socket: ConfigValue<String>?
  /// `mpris`: whether `play` and `serve` offer MPRIS on the session bus.
  package var mpris: ConfigValue<Bool>?
  /// `resume`: whether `serve` restores its last session at start and keeps it as it changes.
  package var resume: ConfigValue<Bool>?
  /// `on-track`: a shell command run on each new current track (the state as JSON on its input).
  package var onTrack: ConfigValue<String>?
  /// `on-state`: a shell command run on every confirmed state.
  package var onState: ConfigValue<String>?

  /// `replaygain`: "off", "track", "album" or "auto".
  package var replayGain: ConfigValue<String>?
  /// `replaygain-preamp`: decibels added to a tagged gain, -15 to 15.
  package var replayGainPreamp: ConfigValue<Double>?
  /// `replaygain-untagged`: decibels a file without ReplayGain tags plays at, -15 to 15.
  package var replayGainUntagged: ConfigValue<Double>?
  /// `replaygain-clip`: whether a gain may push the tagged peak past full scale (false: it is lowered).
  package var replayGainClip: ConfigValue<Bool>?

  /// An empty config for `path`.
  package init(path: String) {
    self.path = path
  }

  /// Reads the file at `path`: an empty config when there is none, an error naming the line when a line does
  /// not parse or sets what splay does not take. `home` expands a leading `~/` in paths.
  package static func load(path: String, home: String?) throws(ConfigError) -> UserConfig {
    guard let text = try TextFile.read(path) else { return UserConfig(path: path) }
    var config = try parse(text, path: path, home: home)
    config.exists = true
    return config
  }

  /// Parses `text`, the contents of the file at `path`.
  package static func parse(_ text: String, path: String, home: String?) throws(ConfigError) -> UserConfig {
    let table: TOMLTable
    do {
      table = try TOMLTable(string: text)
    } catch let error as TOMLParseError {
      throw ConfigError(path: path, line: error.source.begin.line, message: error.description)
    } catch {
      throw ConfigError(path: path, line: nil, message: "\(error)")
    }
    let lines = KeyLines(text)
    var config = UserConfig(path: path)
    // Checked in the order they stand in the file: the first problem a person would meet is the one reported.
    let entries = table.map { (key: $0.0, value: $0.1, line: lines.line(of: $0.0)) }.sorted { $0.line < $1.line }
    for entry in entries {
      let reader = ValueReader(path: path, key: entry.key, line: entry.line, value: entry.value)
      switch entry.key {
      case "output": config.output = try reader.choice(of: ["pulse", "simulated"])
      case "server": config.server = try reader.nonEmptyString()
      case "sink": config.sink = try reader.nonEmptyString()
      case "deadline":
        config.deadline = try reader.number(
          where: { $0 > 0 && $0 <= 600 }, expected: "a number of seconds, more than 0 and at most 600")
      case "volume": config.volume = try reader.integer(in: 0...100)
      case "socket": config.socket = try reader.path(home: home)
      case "mpris": config.mpris = try reader.boolean()
      case "resume": config.resume = try reader.boolean()
      case "on-track": config.onTrack = try reader.nonEmptyString()
      case "on-state": config.onState = try reader.nonEmptyString()
      case "replaygain": config.replayGain = try reader.choice(of: replayGainModes)
      case "replaygain-preamp": config.replayGainPreamp = try reader.decibels()
      case "replaygain-untagged": config.replayGainUntagged = try reader.decibels()
      case "replaygain-clip": config.replayGainClip = try reader.boolean()
      default: throw reader.unknown(among: keys)
      }
    }
    return config
  }
}
