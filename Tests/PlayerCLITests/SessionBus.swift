import AudioTestSupport
import Foundation

/// A private D-Bus session bus for one test: `dbus-daemon --session` on a socket in a scratch folder, ended with
/// the test. splay and the clients (playerctl, busctl, dbus-monitor) find it through DBUS_SESSION_BUS_ADDRESS,
/// so a test never touches the bus of the person running it.
final class SessionBus {
  /// The absolute path of `name` on PATH, or nil when it is not installed.
  static func tool(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// Why the bus tests cannot run here, or nil when they can.
  static let missing: String? = {
    let absent = ["dbus-daemon", "playerctl", "dbus-monitor", "dbus-send"].filter { tool($0) == nil }
    guard !absent.isEmpty else { return nil }
    let reason = "needs \(absent.joined(separator: ", ")) (scripts/install-deps installs dbus and playerctl)"
    return reason
  }()

  let address: String
  private let scratch: ScratchDirectory
  private let daemon: ChildProcess

  /// What a child needs in its environment to use this bus.
  var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

  init() throws {
    scratch = try ScratchDirectory("splay-bus")
    let socket = scratch.path + "/bus"
    address = "unix:path=" + socket
    daemon = try ChildProcess(
      [Self.tool("dbus-daemon")!, "--session", "--nofork", "--nopidfile", "--address=" + address])
    FileAppearance.wait(for: socket)
  }

  // SIGKILL: the daemon inherits the signal mask of the test's thread, where SIGTERM may be blocked, and
  // ChildProcess would then wait five seconds for it before killing it.
  deinit { kill(daemon.pid, SIGKILL) }

  /// Ends the bus daemon now, as when a session ends under a running player.
  func stop() {
    kill(daemon.pid, SIGKILL)
    _ = daemon.wait(timeout: 5)
  }

  /// Runs `tool` with `arguments` against this bus, to its end (at most `timeout` seconds).
  func run(_ tool: String, _ arguments: [String], timeout: Double = 15) throws -> Splay.Result {
    try Splay.run(arguments, environment: environment, timeout: timeout, program: Self.tool(tool)!)
  }

  /// `playerctl --player=PLAYER ARGUMENTS`, its output trimmed.
  func playerctl(_ arguments: String..., player: String = "splay") throws -> Splay.Result {
    var result = try run("playerctl", ["--player=\(player)"] + arguments)
    result.stdout = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    return result
  }

  /// Starts `tool` with `arguments` against this bus in the background, its stdout going to `output`; it ends
  /// with the returned process (end it with SIGKILL for the reason given at `deinit`).
  func start(_ tool: String, _ arguments: [String], output: String) throws -> ChildProcess {
    try ChildProcess(
      [Self.tool(tool)!] + arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
      stdout: output)
  }

  /// Waits until playerctl lists `player` (at most five seconds); whether it did.
  func waitForPlayer(_ player: String = "splay") -> Bool {
    for _ in 0..<100 {
      if let list = try? run("playerctl", ["--list-all"]),
        list.stdout.split(separator: "\n").contains(Substring(player))
      {
        return true
      }
      usleep(50_000)
    }
    return false
  }
}
