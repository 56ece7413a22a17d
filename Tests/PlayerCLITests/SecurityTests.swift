import AudioTestSupport
import Foundation
import Testing

/// Who may reach the control socket, and the bounds on what one client can ask for.
@Suite struct SecurityTests {
  static let setpriv = "/usr/bin/setpriv"
  static let asNobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
  /// Becoming another user needs root (and setpriv); as any other user there is no second uid to test with.
  static let canBecomeNobody = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)

  @Test(.enabled(if: canBecomeNobody, "needs root and /usr/bin/setpriv to connect as another user"))
  func aPeerRunningAsAnotherUserIsRefusedAndChangesNothing() throws {
    let server = try Server(keepingLog: true)
    // The 0600 mode already keeps other users out; open it up so that only the SO_PEERCRED check is left. Not
    // before the server set its own mode (right after it listens: a chmod in between was undone).
    #expect(server.waitUntilServing())
    #expect(chmod(server.path, 0o666) == 0)
    let intruder = try Splay.run(["ctl", "--socket", server.path, "volume", "10"], launcher: Self.asNobody)
    #expect(intruder.status == 1, "\(intruder.stderr)")
    #expect(intruder.stderr.contains("permission-denied: this player belongs to uid 0; uid 65534 may not control it"))
    let owner = try Splay.run(["ctl", "--socket", server.path, "status"])
    #expect(owner.status == 0, "\(owner.stderr)")
    #expect(owner.jsonLines.first?["volume"] as? Int == 100, "the refused request was never read")
  }

  @Test(.enabled(if: canBecomeNobody, "needs root and /usr/bin/setpriv to serve as another user"))
  func aServerOfAnotherUserRefusesEvenRoot() throws {
    let scratch = try ScratchDirectory()
    #expect(chown(scratch.path, 65534, 65534) == 0)
    let path = scratch.path + "/nobody.sock"
    let server = try Daemon(
      Self.asNobody + [Splay.binary, "serve", "--output", "simulated", "--socket", path, "--no-resume"])
    #expect(server.waitForSocket(path))
    // Root passes the socket's 0600 mode; the server still refuses it.
    let client = try ControlClient(path: path)
    client.request(["id": 1, "command": "status"])
    let reply = try #require(client.next())
    #expect((reply["error"] as? [String: Any])?["code"] as? String == "permission-denied")
    #expect(reply["id"] is NSNull, "refused before any request was read")
    #expect(client.next() == nil, "closed after the reply")
  }

  @Test func theDefaultSocketIsPrivateAndADirectoryOthersCanWriteIsRefused() throws {
    let scratch = try ScratchDirectory()
    let privateDirectory = scratch.path + "/private"
    let openDirectory = scratch.path + "/open"
    try FileManager.default.createDirectory(atPath: privateDirectory, withIntermediateDirectories: false)
    try FileManager.default.createDirectory(atPath: openDirectory, withIntermediateDirectories: false)
    #expect(chmod(privateDirectory, 0o700) == 0)
    #expect(chmod(openDirectory, 0o777) == 0)

    let server = try Daemon(
      [Splay.binary, "serve", "--output", "simulated", "--no-resume"],
      environment: ["XDG_RUNTIME_DIR": privateDirectory])
    let socket = privateDirectory + "/splay.sock"
    #expect(server.waitForSocket(socket))
    var st = stat()
    #expect(stat(socket, &st) == 0)
    #expect(st.st_mode & 0o777 == 0o600)

    let refused = try Splay.run(
      ["serve", "--output", "simulated", "--no-resume"], environment: ["XDG_RUNTIME_DIR": openDirectory], timeout: 5)
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("\(openDirectory) is writable by other users and not sticky; pass --socket"))
    #expect(!FileManager.default.fileExists(atPath: openDirectory + "/splay.sock"))

    // Named explicitly, the same directory is the user's choice.
    let explicit = try Daemon([
      Splay.binary, "serve", "--output", "simulated", "--no-resume", "--socket", openDirectory + "/splay.sock",
    ])
    #expect(explicit.waitForSocket(openDirectory + "/splay.sock"))
  }

  @Test func errorsAboutAFileNameItButNeverQuoteItsContents() throws {
    let scratch = try ScratchDirectory()
    let secret = scratch.path + "/secret.flac"
    try Data("password=SECRET-TOKEN-4711\n".utf8).write(to: URL(fileURLWithPath: secret))
    let link = scratch.path + "/link.mp3"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: secret)
    let server = try Server()
    let client = try ControlClient(path: server.path)
    for (id, path) in [secret, link, "/etc/shadow", "/proc/self/environ"].enumerated() {
      client.request(["id": id, "command": "load", "args": [path]])
      let reply = try #require(client.next())
      let text = String(describing: reply)
      #expect(reply["ok"] as? Bool == false)
      #expect(((reply["error"] as? [String: Any])?["message"] as? String)?.hasPrefix(path + ": ") == true, "\(text)")
      #expect(!text.contains("SECRET-TOKEN"), "\(text)")
      #expect(!text.contains("root:"), "\(text)")
    }
  }

  /// 10,001 tracks play (10,000 was the limit once); a state line stays small however long the queue, and the
  /// `queue` request pages the paths, one revision's.
  @Test func aQueueBeyondTenThousandTracksIsReadInPages() throws {
    let server = try Server()
    let client = try ControlClient(path: server.path)
    let file = Splay.fixture("media/short-44k-stereo.flac")
    client.request(["id": 0, "command": "load", "args": Array(repeating: file, count: 501)])
    for batch in 1..<21 {
      client.request(["id": batch, "command": "enqueue", "args": Array(repeating: file, count: 500)])
    }
    for _ in 0..<21 { #expect(client.next()?["ok"] as? Bool == true) }
    client.request(["id": 21, "command": "status"])
    let status = try #require(client.next())
    let state = try #require(status["state"] as? [String: Any])
    #expect(state["queueLength"] as? Int == 10_501)
    #expect(state["queue"] == nil, "the paths are not in the state")
    let line = try JSONSerialization.data(withJSONObject: status)
    #expect(line.count < 4_096, "one status line stays under 4 KB: \(line.count) bytes")
    client.request(["id": 22, "command": "queue", "args": [10_499, 100]])
    let page = try #require(client.next()?["queue"] as? [String: Any])
    #expect(page["length"] as? Int == 10_501)
    #expect(page["offset"] as? Int == 10_499)
    #expect((page["paths"] as? [String])?.count == 2)
    #expect(page["revision"] as? Int == state["queueRevision"] as? Int)
    client.request(["id": 23, "command": "queue", "args": [0, 10_001]])
    let refused = try #require(client.next()?["error"] as? [String: Any])
    #expect(refused["code"] as? String == "bad-arguments")
  }
}

/// A long-running splay (or launcher) process, terminated at the end of the test.
final class Daemon {
  let process: ChildProcess

  init(_ arguments: [String], environment extra: [String: String] = [:]) throws {
    process = try ChildProcess(arguments, environment: ProcessInfo.processInfo.environment.merging(extra) { $1 })
  }

  /// True once a connection to `path` succeeds (within 5 s).
  func waitForSocket(_ path: String) -> Bool { ControlClient.waitForListener(at: path) }
}
