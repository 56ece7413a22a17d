import AudioTestSupport
import Foundation

/// Runs the built `splay` binary, as a user would.
enum Splay {
  /// The repository root.
  static let root: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  /// The `splay` executable next to the test bundle.
  static let binary: String = {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for candidate in [bundle, bundle.deletingLastPathComponent()] {
      let path = candidate.appendingPathComponent("splay").path
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return root + "/.build/debug/splay"
  }()

  static func fixture(_ relative: String) -> String { root + "/fixtures/" + relative }

  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double

    /// The JSON objects printed on stdout, one per line.
    var jsonLines: [[String: Any]] {
      stdout.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }

    var statuses: [String] { jsonLines.compactMap { $0["status"] as? String } }
    /// The paths of the last `{"queue": {...}}` line `play --json` printed (states carry the length only).
    var queue: [String]? {
      (jsonLines.last { $0["queue"] != nil }?["queue"] as? [String: Any])?["paths"] as? [String]
    }

    /// Whether `splay play` printed a play of its queue from the start to the end on the real server: `playing`
    /// first when it started before its arguments were parsed (EarlyStart), or `stopped`, `playing` when the
    /// parse won the race.
    var playedToTheEnd: Bool {
      statuses == ["playing", "ended"] || statuses == ["stopped", "playing", "ended"]
    }
  }

  /// Runs `splay ARGUMENTS` with an optional extra environment and stdin, and a hard timeout. `launcher` runs
  /// splay through another program (`setpriv --reuid=…` to run it as another user). The child's streams are
  /// files, not pipes (see ``ChildProcess``). `program` runs another program with `arguments` instead (one
  /// that runs splay itself, such as script(1)). It runs in `directory`, the repository's root by default.
  static func run(
    _ arguments: [String], environment extra: [String: String] = [:], stdin: String? = nil, timeout: Double = 30,
    launcher: [String] = [], program: String? = nil, directory: String? = nil
  )
    throws -> Result
  {
    let scratch = try ScratchDirectory("splay-run")
    let input = scratch.path + "/stdin"
    try Data((stdin ?? "").utf8).write(to: URL(fileURLWithPath: input))
    let started = MonitorRecorder.now()
    let child = try ChildProcess(
      program.map { [$0] + arguments } ?? ((launcher.isEmpty ? [binary] : launcher + [binary]) + arguments),
      environment: ProcessInfo.processInfo.environment.merging(extra) { $1 }, directory: directory ?? root,
      stdin: stdin == nil ? "/dev/null" : input, stdout: scratch.path + "/stdout", stderr: scratch.path + "/stderr")
    if child.wait(timeout: timeout) == nil { child.terminate() }
    let status = child.wait(timeout: 5) ?? -1
    let seconds = Double(MonitorRecorder.now() - started) / 1e9
    func text(_ name: String) -> String {
      String(decoding: FileManager.default.contents(atPath: scratch.path + "/" + name) ?? Data(), as: UTF8.self)
    }
    return Result(status: status, stdout: text("stdout"), stderr: text("stderr"), seconds: seconds)
  }
}
