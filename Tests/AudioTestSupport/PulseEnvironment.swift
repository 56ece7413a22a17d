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

  /// Runs a program that may leave daemons behind (a PulseAudio server, a tmux server) and returns its exit
  /// status. Its output goes to `output`, and every descriptor above 2 is closed in the child (Python's
  /// `close_fds`): a daemon would otherwise inherit pipes of processes this test process started, and keep
  /// their readers waiting for as long as it lives.
  public static func runDetached(_ arguments: [String], output: String = "/dev/null") throws -> Int32 {
    let launcher = """
      import subprocess, sys
      with open(sys.argv[1], "w") as out:
          sys.exit(subprocess.call(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.DEVNULL))
      """
    return try run("/usr/bin/python3", ["-c", launcher, output] + arguments).status
  }

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
