import ArgumentParser
import PlayerCore
import PlayerIndex
import SplayConsole

/// `splay-library tags`: the title, artist and album the index holds for the tracks named on stdin
/// (NUL-separated), for the live view's `/`, which finds a queued track by them. Prints `PATH NUL TEXT NUL` for
/// each track the index has tags of, in the order given; nothing without an index (none is made).
struct TagsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tags",
    abstract: "Print the title, artist and album the index holds for the tracks named on stdin (NUL-separated).",
    shouldDisplay: false)

  func run() throws {
    let paths = try Library.pathsOnStandardInput()
    guard let (index, names) = Library.readyIndex(naming: paths) else { return }
    let found = try index.tagText(for: names)
    var bytes: [UInt8] = []
    for (path, name) in zip(paths, names) {
      guard let text = found[name] else { continue }
      bytes += path.utf8 + [0] + text.utf8 + [0]
      if bytes.count >= 1 << 16 {
        Console.out(bytes: bytes)
        bytes.removeAll(keepingCapacity: true)
      }
    }
    if !bytes.isEmpty { Console.out(bytes: bytes) }
  }
}
