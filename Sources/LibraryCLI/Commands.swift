import ArgumentParser
import PlayerIndex
import SplayConsole

#if canImport(Glibc)
  import Glibc
#endif

/// `splay library add PATH...`: remembers folders (or files, playlists, cue sheets) and scans.
struct AddCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add", abstract: "Add folders to the library, then scan.")

  @Flag(name: .long, help: "Only remember the roots; 'splay library scan' reads them later.")
  var noScan = false

  @Argument(help: ArgumentHelp("Folders (or files, playlists, cue sheets) to index.", valueName: "path"))
  var paths: [String]

  func run() throws {
    let library = try Library()
    var roots = try library.roots.read()
    let here = Self.workingDirectory()
    for path in paths {
      let root = LibraryRoots.normalize(path, workingDirectory: here)
      guard access(root, R_OK) == 0 else {
        throw LibraryFailure(message: "\(path): \(String(cString: strerror(errno)))", status: .fileError)
      }
      if !roots.contains(root) { roots.append(root) }
    }
    try library.roots.write(roots)
    guard !noScan else { return }
    let index = try library.index(refill: false)
    if try !library.scan(index) { throw LibraryFailure(message: "some files could not be read", status: .fileError) }
  }

  static func workingDirectory() -> String {
    guard let pointer = getcwd(nil, 0) else { return "/" }
    defer { free(pointer) }
    return String(cString: pointer)
  }
}

/// `splay library remove PATH...`: forgets roots, and their tracks.
struct RemoveCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remove", abstract: "Remove roots from the library, and their tracks from the index.")

  @Argument(help: ArgumentHelp("Roots, as 'splay library roots' lists them.", valueName: "path"))
  var paths: [String]

  func run() throws {
    let library = try Library()
    var roots = try library.roots.read()
    let here = AddCommand.workingDirectory()
    for path in paths {
      let root = LibraryRoots.normalize(path, workingDirectory: here)
      guard let place = roots.firstIndex(of: root) else {
        throw LibraryFailure(message: "\(path): not a root of the library", status: .failed)
      }
      roots.remove(at: place)
    }
    try library.roots.write(roots)
    let index = try library.index(refill: false)
    _ = try library.scan(index)
  }
}

/// `splay library roots`: the roots, one per line.
struct RootsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "roots", abstract: "List the library's roots.")

  func run() throws {
    for root in try Library().roots.read() { Console.out(root) }
  }
}

/// `splay library scan`: brings the index up to date.
struct ScanCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scan",
    abstract: "Bring the index up to date with the roots.",
    discussion: "Reads the tags of new and changed files only (by size and time); tracks of files that are gone leave.")

  func run() throws {
    let library = try Library()
    let index = try library.index(refill: false)
    if try !library.scan(index) { throw LibraryFailure(message: "some files could not be read", status: .fileError) }
  }
}

/// `splay library search QUERY`: the matching tracks.
struct SearchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Print the tracks whose title, artist, album or path hold every word of the query.",
    discussion: """
      Case and accents are ignored; a word matches inside longer ones. 'artist:', 'album:', 'title:' and 'path:' \
      limit a word to one field; double quotes keep words together ('album:"homo genic"'). Prints one path per \
      line (a playlist 'splay play -' reads), or with --long the tags too. Exits 1 when nothing matches.
      """)

  @Option(name: .long, help: "Print at most this many tracks.")
  var limit: Int?

  @Flag(name: .long, help: "Artist, title, album and length before each path, tab-separated.")
  var long = false

  @Flag(name: .long, help: "End each path with a NUL byte instead of a newline (paths may hold newlines).")
  var null = false

  @Flag(name: .long, help: "Exit 0 when nothing matches.")
  var allowNone = false

  @Argument(help: ArgumentHelp("Words to find.", valueName: "query"))
  var words: [String]

  func validate() throws {
    if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
  }

  func run() throws {
    let text = words.joined(separator: " ")
    let query = try LibraryQuery(text)
    let index = try Library().index(refill: true)
    let tracks = try index.search(query, limit: limit)
    for track in tracks {
      guard long else {
        null ? Console.raw(track.path + "\u{0}") : Console.out(track.path)
        continue
      }
      let tags = track.tags
      let length = tags.duration.map { String(format: $0) } ?? ""
      Console.out([tags.artist ?? "", tags.title ?? "", tags.album ?? "", length, track.path].joined(separator: "\t"))
    }
    guard tracks.isEmpty, !allowNone else { return }
    let empty = try index.count() == 0
    throw LibraryFailure(
      message: "search '\(text)': "
        + (empty ? "the library is empty ('splay library add FOLDER')" : "no track matches"),
      status: .failed)
  }
}
