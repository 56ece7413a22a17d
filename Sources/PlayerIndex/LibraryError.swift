/// What can go wrong with the library, each said in one line that names the file or the query.
public enum LibraryError: Error, Equatable, Sendable {
  /// A file could not be read or written: the path and the system's reason.
  case file(String, String)
  /// The index could not be opened or used: its path and SQLite's reason.
  case index(String, String)
  /// A root that is not there: the path and the system's reason.
  case root(String, String)
  /// A track whose tags could not be read: the decoder's message, which names it.
  case track(String)
  /// A query that finds nothing to look for (empty, or only a prefix).
  case query(String)

  /// The one-line message for a person.
  public var message: String {
    switch self {
    case .file(let path, let reason): "\(path): \(reason)"
    case .index(let path, let reason): "\(path): the library index: \(reason)"
    case .root(let path, let reason): "\(path): \(reason)"
    case .track(let message): message
    case .query(let text): "search '\(text)': nothing to search for"
    }
  }
}
