import PlayerCore
import PlayerLibrary

/// The `file` arguments of `splay play`: files, folders and playlists, and `-` for a list of paths on
/// standard input (one per line, as `find` prints them, or an M3U playlist).
enum TrackArguments {
  /// The tracks `arguments` name, in order. Standard input is read at most once.
  static func expand(_ arguments: [String]) throws(CLIError) -> TrackList {
    guard arguments.count(where: { $0 == "-" }) <= 1 else {
      throw CLIError(message: "'-' (read the list from standard input) may be given once", status: .usage)
    }
    let expander = TrackListExpander()
    var result = TrackList()
    var pending: [String] = []
    func flush() {
      guard !pending.isEmpty else { return }
      result.append(expander.expand(pending))
      pending.removeAll()
    }
    for argument in arguments {
      guard argument == "-" else {
        pending.append(argument)
        continue
      }
      flush()
      let bytes: [UInt8]
      do throws(FileContents.ReadError) {
        bytes = try FileContents.readStandardInput(limit: 16 << 20)
      } catch {
        throw CLIError(message: "standard input: \(error.reason)", status: .fileError)
      }
      result.append(expander.expand(playlist: bytes, kind: .m3u, name: "stdin", folder: ""))
    }
    flush()
    return result
  }
}

extension TrackList {
  /// Appends `other`'s tracks, skipped entries and summaries.
  fileprivate mutating func append(_ other: TrackList) {
    // The usual case, one run of arguments: taken as it is rather than copied.
    if paths.isEmpty { paths = other.paths } else { paths += other.paths }
    skipped += other.skipped
    summaries += other.summaries
  }
}
