import ArgumentParser
import ControlProtocol
import PlayerCore
import PlayerIndex
import PlayerLibrary
import SplayConsole

/// `splay-library info`: what `splay info` prints for the tracks it names on stdin, answered from the index for
/// files whose size and time are those it read, and from the files otherwise. `splay info` becomes it for a
/// long list when there is an index.
struct InfoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "info",
    abstract: "Print what 'splay info' prints for the tracks named on stdin (NUL-separated), from the index.",
    shouldDisplay: false)

  @Flag(name: .long, help: "One JSON object per file on stdout.")
  var json = false

  @Flag(name: .long, help: "Exit 3 even when every track was read: entries were left out before.")
  var incomplete = false

  @Option(name: .long, help: "How long connecting to a stream, and each read of it, may take (seconds).")
  var streamTimeout: Double = 3

  func run() throws {
    let paths = try Library.pathsOnStandardInput()
    let cached = Self.cachedFacts(for: paths)
    let decoders = Library.decoders(streamTimeout: streamTimeout)
    var report = TrackInfoReport(
      failed: incomplete, eachLine: Console.stdoutIsTerminal, out: Console.out(bytes:), error: Console.error)
    let failed = report.run(over: paths, json: json ? { $0.jsonText } : nil) { path throws(PlayerError) in
      if let known = cached[path], FileStamp(track: path) == known.stamp {
        var info = known.facts.info
        info.path = path
        return (info, known.facts.gains)
      }
      return (try decoders.open(path).info, nil)
    }
    if failed { throw LibraryFailure(message: "some files could not be read", status: .fileError) }
  }

  /// What the index holds for `paths`, by the path as given; nothing when there is no index made by this
  /// version (nothing is made). The index names tracks by absolute paths, as the scan walked its roots.
  static func cachedFacts(for paths: [String]) -> [String: (stamp: FileStamp, facts: TrackFacts)] {
    guard let (index, names) = Library.readyIndex(naming: paths), let found = try? index.facts(for: names) else {
      return [:]
    }
    var byPath: [String: (stamp: FileStamp, facts: TrackFacts)] = [:]
    for (path, name) in zip(paths, names) { byPath[path] = found[name] }
    return byPath
  }
}
