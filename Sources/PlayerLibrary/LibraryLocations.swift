#if canImport(Glibc)
  import Glibc
#endif

/// Where the library keeps its files: the index, a cache (`$XDG_CACHE_HOME/splay/library.sqlite`, else
/// `~/.cache/splay/library.sqlite`), and the list of roots, which deleting the cache must not lose
/// (`$XDG_STATE_HOME/splay/library-roots`, else `~/.local/state/splay/library-roots`).
public struct LibraryLocations: Sendable, Equatable {
  /// The SQLite index.
  public var index: String
  /// The text file of roots, one absolute path per line.
  public var roots: String

  /// Names both files.
  public init(index: String, roots: String) {
    self.index = index
    self.roots = roots
  }

  /// The standard places for `environment` (the process's variables); nil without a home to put them in.
  public init?(environment: [String: String]) {
    func folder(_ variable: String, _ fallback: String) -> String? {
      if let base = environment[variable], base.hasPrefix("/") { return base + "/splay/" }
      guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
      return home + fallback + "/splay/"
    }
    guard let cache = folder("XDG_CACHE_HOME", "/.cache"), let state = folder("XDG_STATE_HOME", "/.local/state")
    else { return nil }
    self.init(index: cache + "library.sqlite", roots: state + "library-roots")
  }

  /// The standard places for this process's `HOME`, `XDG_CACHE_HOME` and `XDG_STATE_HOME`.
  public static func ofThisProcess() -> LibraryLocations? {
    var environment: [String: String] = [:]
    for key in ["HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"] {
      if let value = getenv(key) { environment[key] = String(cString: value) }
    }
    return LibraryLocations(environment: environment)
  }
}
