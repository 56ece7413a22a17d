/// What splay plays that is not a file: an `http://` or `https://` URL (internet radio, a file on a web server),
/// decoded through FFmpeg's own protocol layer.
public enum StreamURL {
  /// Whether `location` is an http or https URL (the scheme in any case).
  public static func isStream(_ location: String) -> Bool {
    let head = location.prefix(8).lowercased()
    return head.hasPrefix("http://") || head.hasPrefix("https://")
  }
}
