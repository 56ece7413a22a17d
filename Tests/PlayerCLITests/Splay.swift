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
  }

  /// Runs `splay ARGUMENTS` with an optional extra environment and stdin, and a hard timeout. `launcher` runs
  /// splay through another program (`setpriv --reuid=…` to run it as another user).
  static func run(
    _ arguments: [String], environment extra: [String: String] = [:], stdin: String? = nil, timeout: Double = 30,
    launcher: [String] = []
  )
    throws -> Result
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: launcher.first ?? binary)
    process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [binary] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: root)
    process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    let started = MonitorRecorder.now()
    try process.run()
    if let stdin {
      input.fileHandleForWriting.write(Data(stdin.utf8))
      try input.fileHandleForWriting.close()
    }
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    while process.isRunning { usleep(1000) }
    killer.cancel()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
      stderr: String(decoding: stderr, as: UTF8.self), seconds: Double(MonitorRecorder.now() - started) / 1e9)
  }
}
