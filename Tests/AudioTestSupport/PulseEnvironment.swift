import Foundation

/// The private PulseAudio server that `make test` starts (scripts/pulse-sandbox), as the tests see it.
public enum PulseEnvironment {
  /// `PULSE_SERVER`, when set.
  public static let server: String? = ProcessInfo.processInfo.environment["PULSE_SERVER"]

  /// The null sink to record from.
  public static let sink: String = ProcessInfo.processInfo.environment["SPLAY_TEST_SINK"] ?? "splay_null"

  /// True when a server is configured and answers `pactl info`.
  public static let available: Bool = {
    guard server != nil else {
      print(
        "PulseAudio tests skipped: PULSE_SERVER is not set (run them with `make test`, which starts a private server)")
      return false
    }
    let answers = (try? run("/usr/bin/pactl", ["info"]))?.status == 0
    if !answers { print("PulseAudio tests skipped: the server at \(server ?? "?") does not answer `pactl info`") }
    return answers
  }()

  /// Runs a program to completion and returns its status and output.
  public static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
  }
}
