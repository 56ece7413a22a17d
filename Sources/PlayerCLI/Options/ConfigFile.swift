import FoundationEssentials
import SplayConfig

/// The user's `config.toml` (see ``ConfigLocation``), read by each command that takes defaults from it.
enum ConfigFile {
  /// Reads it; none is an empty config, and a mistake in it ends splay with status 2 and the file's line.
  static func load() throws(CLIError) -> UserConfig {
    let environment = ProcessInfo.processInfo.environment
    guard let path = ConfigLocation.path(environment: environment) else { return UserConfig(path: "") }
    do {
      return try UserConfig.load(path: path, home: environment["HOME"])
    } catch {
      throw CLIError(message: error.description, status: .usage)
    }
  }
}
