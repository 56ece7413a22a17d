/// Where the config file is: `$XDG_CONFIG_HOME/splay/config.toml`, or `~/.config/splay/config.toml` when that
/// variable is unset or not an absolute path (as the XDG Base Directory specification says).
package enum ConfigLocation {
  /// The path for `environment` (the process's variables); nil without a home to put it in.
  package static func path(environment: [String: String]) -> String? {
    if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") {
      return base + "/splay/config.toml"
    }
    guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
    return home + "/.config/splay/config.toml"
  }
}
