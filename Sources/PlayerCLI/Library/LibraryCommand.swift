import ArgumentParser

/// `splay library add|remove|roots|scan|search`: the library index, run by `splay-library`.
struct LibraryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "library",
    abstract: "Index folders of music and search them ('splay library --help' for more).",
    discussion: """
      Commands:
        add PATH...      remember folders as roots of the library, then scan
        remove PATH...   forget roots, and their tracks
        roots            list the roots
        scan             read new and changed files, drop the gone ones
        search QUERY     print the paths of the matching tracks (as 'splay search')
      Then 'splay play --search QUERY' plays what a query finds.
      """)

  @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("A command and its arguments.", valueName: "command"))
  var arguments: [String] = []

  func run() throws {
    try LibraryProgram.become(arguments.isEmpty ? ["--help"] : arguments)
  }
}

/// `splay search QUERY`: the library's tracks that match, one path per line.
struct SearchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Print the library's tracks whose title, artist, album or path hold every word of the query.",
    discussion: """
      Case and accents are ignored; a word matches inside longer ones; artist:, album:, title: and path: limit a \
      word to one field. Options as 'splay library search' (--long, --limit N, --null). Exits 1 when nothing \
      matches. Examples: splay search björk hyper   splay search artist:björk | splay play -
      """)

  @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("Words to find.", valueName: "query"))
  var arguments: [String] = []

  func run() throws {
    try LibraryProgram.become(["search"] + arguments)
  }
}
