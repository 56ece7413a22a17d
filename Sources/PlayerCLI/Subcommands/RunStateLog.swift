import ControlProtocol
import FoundationEssentials
import PlayerCore
import PlayerScripts

/// `splay run --record FILE` and `--expect-log FILE`: the state confirmed after each line of a script, written
/// as JSON lines (``StateLogEntry``), and a later run held to it line by line.
struct RunStateLog {
  /// A recorded log and how far a run has followed it.
  struct Expected {
    /// The log's path, for messages.
    let path: String
    let entries: [StateLogEntry]
    /// How far a position may stray from the recorded one, in seconds.
    let tolerance: Double
    /// How many entries the run has been compared with.
    private(set) var used = 0

    /// Reads the log at `path`; a log that cannot be read or has a line that is not an entry is a usage error
    /// naming the line.
    init(path: String, tolerance: Double) throws {
      self.path = path
      self.tolerance = tolerance
      let bytes: [UInt8]
      do throws(FileContents.ReadError) {
        bytes = try FileContents.read(path: path)
      } catch {
        throw CLIError(message: "\(path): cannot read the log (\(error.reason))", status: .usage)
      }
      var entries: [StateLogEntry] = []
      for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
      where !line.isEmpty {
        guard let entry = StateLogEntry.read(line) else {
          throw CLIError(message: "\(path):\(number + 1): not a line of a state log", status: .usage)
        }
        entries.append(entry)
      }
      self.entries = entries
    }

    /// Compares the state after `step` with the next entry; returns why they differ, or nil.
    mutating func check(_ step: PlaybackScript.Step, _ state: PlayerState) -> String? {
      guard used < entries.count else { return "the log \(path) ends before this line" }
      let entry = entries[used]
      used += 1
      guard entry.line == step.line, entry.text == step.text else {
        return "the log \(path) was recorded from another script: its line \(used) is for line \(entry.line), "
          + "'\(entry.text.prefix(60))'"
      }
      let differences = StateDifference.between(state, recorded: entry.state, tolerance: tolerance)
      guard !differences.isEmpty else { return nil }
      return "differs from \(path):\(used): " + differences.joined(separator: "; ")
    }

    /// Why the log goes on after a run that ended without a failure, or nil.
    var rest: String? {
      guard used < entries.count else { return nil }
      return "\(path): the log goes on to line \(entries[used].line) ('\(entries[used].text.prefix(60))'), "
        + "the run ended before it"
    }
  }

  /// Writes `entries` as the log at `path` (replacing it).
  static func write(_ entries: [StateLogEntry], to path: String) throws {
    var text = ""
    for entry in entries {
      // No output reports a position that is not a number; a log missing a line would misalign the next run.
      guard let line = entry.jsonText else {
        throw CLIError(message: "\(path): line \(entry.line)'s state cannot be written", status: .failed)
      }
      text += line + "\n"
    }
    do {
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    } catch {
      throw CLIError(message: "\(path): cannot write the log", status: .fileError)
    }
  }
}
