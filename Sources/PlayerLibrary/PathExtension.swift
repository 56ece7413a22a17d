/// The extension of a path's last component: what playlists, cue sheets and FLAC files are first told by.
enum PathExtension {
  /// Where the extension's dot is in `path`; nil when its last component has none.
  static func dot(in path: String) -> String.Index? {
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
    return dot
  }

  /// The extension of `path` in lowercase, without its dot (`m3u8`, `cue`); nil when it has none.
  static func lowercased(of path: String) -> String? {
    dot(in: path).map { path[path.index(after: $0)...].lowercased() }
  }
}
