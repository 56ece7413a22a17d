import ArgumentParser
import PlayerIndex
import SplayConsole

#if canImport(Glibc)
  import Glibc
#endif

/// `splay-library`: the library index, run by `splay library`, `splay search` and `splay play --search` (a
/// program of its own, so that SQLite is loaded only by what searches).
struct SplayLibrary: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "splay library",
    abstract: "Index folders of music and search them by title, artist, album or path.",
    discussion: """
      The roots are kept in $XDG_STATE_HOME/splay/library-roots, the index in $XDG_CACHE_HOME/splay/library.sqlite \
      (a cache: deleting it loses nothing but the time of a scan).

      Examples:
        splay library add ~/Music
        splay library scan
        splay search 'björk hyper'
        splay play --search 'artist:björk'

      Exit codes: 0 success; 1 the index cannot be used, or nothing matched a search; 2 usage error; 3 a root is \
      missing or some files could not be read (the rest are indexed).
      """,
    subcommands: [
      AddCommand.self, RemoveCommand.self, RootsCommand.self, ScanCommand.self, SearchCommand.self, InfoCommand.self,
      TagsCommand.self,
    ]
  )
}

/// The exit codes, as `splay`'s.
enum LibraryExit: Int32 {
  case success = 0
  case failed = 1
  case usage = 2
  case fileError = 3
}

/// An error that ends the program with a one-line message and an exit code.
struct LibraryFailure: Error {
  var message: String
  var status: LibraryExit
}

@main
enum Main {
  static func main() {
    var status = LibraryExit.success
    do {
      var command = try SplayLibrary.parseAsRoot()
      try command.run()
    } catch let failure as LibraryFailure {
      Console.error(failure.message)
      status = failure.status
    } catch let error as LibraryError {
      Console.error(error.message)
      status = .failed
    } catch {
      let code = SplayLibrary.exitCode(for: error)
      if code == .success {
        Console.out(SplayLibrary.fullMessage(for: error))
      } else if let exit = error as? ExitCode {
        status = LibraryExit(rawValue: exit.rawValue) ?? .failed
      } else {
        Console.errorText(SplayLibrary.fullMessage(for: error))
        status = .usage
      }
    }
    exit(status.rawValue)
  }
}
