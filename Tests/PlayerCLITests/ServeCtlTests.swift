import AudioTestSupport
import Foundation
import Testing

@Suite struct ServeCtlTests {
  @Test func ctlRoundTripsPrintConfirmedStates() throws {
    let server = try Server()
    let load = try Splay.run(["ctl", "--socket", server.path, "load", "fixtures/media/ladder-44k-stereo.flac"])
    #expect(load.status == 0, "\(load.stderr)")
    #expect(load.jsonLines.first?["status"] as? String == "stopped")
    let play = try Splay.run(["ctl", "--socket", server.path, "play"])
    #expect(play.jsonLines.first?["status"] as? String == "playing")
    let seek = try Splay.run(["ctl", "--socket", server.path, "seek", "-5"])
    #expect(seek.status == 0, "negative numbers are arguments, not options")
    let bad = try Splay.run(["ctl", "--socket", server.path, "jump", "9"])
    #expect(bad.status == 1)
    #expect(bad.stderr.contains("invalid-state"))
    let usage = try Splay.run(["ctl", "--socket", server.path, "seek", "sideways"])
    #expect(usage.status == 2)
    let status = try Splay.run(["ctl", "--socket", server.path, "status"])
    #expect(status.status == 0)
    #expect(status.jsonLines.first?["queueLength"] as? Int == 1)
    let queue = try Splay.run(["ctl", "--socket", server.path, "queue"])
    #expect(
      (queue.jsonLines.first?["queue"] as? [String: Any])?["paths"] as? [String] == [
        Splay.root + "/fixtures/media/ladder-44k-stereo.flac"
      ])
  }

  @Test func subscribersSeeEveryChangeInOrderAfterTheReply() throws {
    let server = try Server()
    let watcher = try ControlClient(path: server.path)
    watcher.request(["id": 1, "command": "subscribe"])
    #expect(watcher.next()?["ok"] as? Bool == true)
    let actor = try ControlClient(path: server.path)
    actor.request(["id": 10, "command": "load", "args": [Splay.fixture("media/sweep-30s.flac")]])
    actor.request(["id": 11, "command": "play"])
    actor.request(["id": 12, "command": "volume", "args": ["40%"]])
    actor.request(["id": 13, "command": "pause"])
    actor.request(["id": 14, "command": "seek", "args": [12.5]])
    var replies: [Int] = []
    var lastRevision = 0
    for _ in 0..<5 {
      let reply = try #require(actor.next())
      replies.append(reply["id"] as? Int ?? -1)
      #expect(reply["ok"] as? Bool == true)
      let revision = (reply["state"] as? [String: Any])?["revision"] as? Int ?? 0
      #expect(revision > lastRevision)
      lastRevision = revision
    }
    #expect(replies == [10, 11, 12, 13, 14])
    var revisions: [Int] = []
    while revisions.last != lastRevision, let event = watcher.next() {
      #expect(event["event"] as? String == "state")
      revisions.append((event["state"] as? [String: Any])?["revision"] as? Int ?? -1)
    }
    #expect(revisions == Array(1...lastRevision), "every published state, in order")
  }

  /// Server commands (`subscribe`, `unsubscribe`, `quit`) are answered after the replies to the requests sent
  /// before them: only refusals may overtake (docs/protocol.md).
  @Test func serverCommandsWaitForTheRepliesBeforeThem() throws {
    let server = try Server()
    let client = try ControlClient(path: server.path)
    let sweep = Splay.fixture("media/sweep-30s.flac")
    client.send(
      [
        #"{"id": 1, "command": "load", "args": ["\#(sweep)"]}"#, #"{"id": 2, "command": "subscribe"}"#,
        #"{"id": 3, "command": "play"}"#, #"{"id": 4, "command": "unsubscribe"}"#, #"{"id": 5, "command": "pause"}"#,
        #"{"id": 6, "command": "quit"}"#,
      ].joined(separator: "\n") + "\n")
    var replies: [Int] = []
    while replies.count < 6, let line = client.next() {
      if let id = line["id"] as? Int { replies.append(id) }
    }
    #expect(replies == [1, 2, 3, 4, 5, 6], "replies in request order")
  }

  /// `ctl follow` that the server lets go (`limit-exceeded`) says so and fails; it is not a clean end.
  @Test func followFailsWhenTheServerLetsItGo() throws {
    let socket = FileManager.default.temporaryDirectory.path + "/splay-follow-\(getpid()).sock"
    // A server that answers the subscription with a state, then lets the client go as `splay serve` does.
    let script = #"""
      import socket, sys
      s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
      c, _ = s.accept(); c.recv(65536)
      state = '{"queueLength":0,"queueRevision":0,"repeat":"off","shuffle":false,"revision":0,"status":"idle",'
      state += '"volume":100,'
      state += '"position":{"seconds":0,"confirmedAt":0,"rate":0}}'
      c.sendall(('{"id":1,"ok":true,"state":' + state + '}\n').encode())
      c.sendall(b'{"error":{"code":"limit-exceeded","message":"more than 4 MiB of events unread; closing"},"id":null,"ok":false}\n')
      c.close()
      """#
    let fake = try ChildProcess(["/usr/bin/python3", "-c", script, socket])
    defer { unlink(socket) }
    FileAppearance.wait(for: socket)
    _ = fake
    let follow = try Splay.run(["ctl", "--socket", socket, "follow", "--json"])
    #expect(follow.status == 1, "\(follow.stderr)")
    #expect(follow.stderr.contains("limit-exceeded"), "\(follow.stderr)")
  }

  @Test func badRequestsGetErrorRepliesAndTheConnectionStaysUsable() throws {
    let server = try Server()
    let client = try ControlClient(path: server.path)
    client.send("not json\n")
    #expect((client.next()?["error"] as? [String: Any])?["code"] as? String == "bad-request")
    client.send(#"{"id": 2, "command": "dance"}"# + "\n")
    let unknown = try #require(client.next())
    #expect(unknown["id"] as? Int == 2)
    #expect((unknown["error"] as? [String: Any])?["code"] as? String == "unknown-command")
    client.send(#"{"id": 3, "command": "seek", "args": [true]}"# + "\n")
    let wrongType = try #require(client.next())
    #expect(wrongType["id"] as? Int == 3)
    #expect((wrongType["error"] as? [String: Any])?["code"] as? String == "bad-request")
    client.send(#"{"id": 4, "command": "pause"}"# + "\n")
    #expect((client.next()?["error"] as? [String: Any])?["code"] as? String == "invalid-state")
    client.send(#"{"id": 5, "command": "status"}"# + "\n")
    #expect(client.next()?["ok"] as? Bool == true)
  }

  @Test func anOversizedLineIsAnsweredThenClosed() throws {
    let server = try Server()
    let client = try ControlClient(path: server.path)
    client.send(String(repeating: "x", count: 70_000) + "\n")
    let reply = try #require(client.next())
    #expect((reply["error"] as? [String: Any])?["code"] as? String == "line-too-long")
    #expect(client.next() == nil, "closed after the error")
    let other = try ControlClient(path: server.path)
    other.request(["id": 1, "command": "status"])
    #expect(other.next()?["ok"] as? Bool == true, "the server keeps serving others")
  }

  @Test func manyPipelinedRequestsAreAllAnsweredInOrder() throws {
    let server = try Server()
    let client = try ControlClient(path: server.path)
    client.request(["id": 0, "command": "load", "args": [Splay.fixture("media/sweep-30s.flac")]])
    _ = client.next()
    let count = 2_000
    var text = ""
    for i in 1...count { text += #"{"id": \#(i), "command": "volume", "args": ["\#(i % 101)"]}"# + "\n" }
    client.send(text)
    var ids: [Int] = []
    while ids.count < count, let reply = client.next() { ids.append(reply["id"] as? Int ?? -1) }
    #expect(ids == Array(1...count))
  }

  @Test func theSocketIsPrivateExclusiveAndRemovedOnQuit() throws {
    let server = try Server()
    var st = stat()
    #expect(stat(server.path, &st) == 0)
    #expect(st.st_mode & 0o777 == 0o600)
    let second = try Splay.run(["serve", "--output", "simulated", "--no-resume", "--socket", server.path], timeout: 5)
    #expect(second.status == 1)
    #expect(second.stderr.contains("another splay already serves"))
    let quit = try Splay.run(["ctl", "--socket", server.path, "quit"])
    #expect(quit.status == 0)
    for _ in 0..<200 where server.process.isRunning { usleep(10_000) }
    #expect(!server.process.isRunning)
    #expect(!FileManager.default.fileExists(atPath: server.path))
  }

  @Test func aStaleSocketFileIsReplaced() throws {
    let path = FileManager.default.temporaryDirectory.path + "/splay-stale-\(getpid()).sock"
    // A socket file nobody listens on: bind and close without listening.
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    _ = withUnixSocketAddress(path) { bind(fd, $0, $1) }
    close(fd)
    #expect(FileManager.default.fileExists(atPath: path))
    // Ended when the test ends (ChildProcess's deinit); it inherits no descriptor of the test process.
    let server = try ChildProcess([Splay.binary, "serve", "--output", "simulated", "--socket", path, "--no-resume"])
    defer { withExtendedLifetime(server) {} }
    var answered = false
    for _ in 0..<300 where !answered {
      if let client = try? ControlClient(path: path) {
        client.request(["id": 1, "command": "status"])
        answered = client.next()?["ok"] as? Bool == true
      } else {
        usleep(10_000)
      }
    }
    #expect(answered)
  }
}

extension ServeCtlTests {
  /// A subscriber that stops reading is let go once its unsent lines pass the 4 MiB high-water mark: what was
  /// queued reaches it whole and in order, then a line that says why, then the end; others are served
  /// throughout. (Closing at once dropped the queue: 71 KB arrived of 12 MB, the last line cut mid-way.)
  @Test func aStalledSubscriberIsClosedAfterFourMebibytesWithNothingSkipped() throws {
    let server = try Server()
    let watcher = try ControlClient(path: server.path)
    watcher.request(["id": 1, "command": "subscribe"])
    let actor = try ControlClient(path: server.path)
    actor.request(["id": 2, "command": "load", "args": [Splay.fixture("media/ladder-44k-stereo.flac")]])
    let loaded = try #require(actor.next())
    #expect(loaded["ok"] as? Bool == true)
    // 8 MiB of events: past the 4 MiB mark plus what the kernel's socket buffers hold (6 MiB sometimes all
    // fitted, so the server never let go), and not much more, because the server closes a subscriber it let
    // go 10 s later whether it read or not (a busy machine sending 12 MB took longer, and the queued lines
    // were lost with the close). An event is about as long as a reply.
    let eventBytes = try JSONSerialization.data(withJSONObject: loaded).count
    let batch = 250
    let rounds = (8 << 20) / eventBytes / batch + 1
    for round in 0..<rounds {
      for i in 0..<batch {
        actor.request(["id": 10 + i, "command": "volume", "args": [(round * batch + i) % 2 == 0 ? 30 : 31]])
      }
      for _ in 0..<batch { #expect(actor.next()?["ok"] as? Bool == true) }
    }
    var bytes = 0
    var revisions: [Int] = []
    #expect(watcher.next()?["ok"] as? Bool == true, "the subscribe reply comes first")
    var last: [String: Any]?
    while let line = watcher.next() {
      if let state = line["state"] as? [String: Any] { revisions.append(state["revision"] as? Int ?? -1) }
      bytes += try JSONSerialization.data(withJSONObject: line).count + 1
      last = line
    }
    #expect((last?["error"] as? [String: Any])?["code"] as? String == "limit-exceeded", "told why, last")
    #expect(bytes > 4 * 1024 * 1024, "closed only past the high-water mark (\(bytes) bytes arrived)")
    #expect(revisions.count < rounds * batch, "a subscriber that never reads is closed")
    #expect(revisions == Array(1...max(1, revisions.count)), "events before the close arrive in order, none skipped")
    actor.request(["id": 3, "command": "status"])
    #expect(actor.next()?["ok"] as? Bool == true, "the other client is still served")
  }
}

extension ServeCtlTests {
  /// On a terminal `ctl` prints a summary like `mpc status`; piped, JSON; `--json` forces JSON.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a terminal"))
  func ctlStatusIsReadableOnATerminalAndJSONWhenPiped() throws {
    let server = try Server()
    let load = try Splay.run(["ctl", "--socket", server.path, "load", Splay.fixture("media/sweep-30s.flac")])
    #expect(load.status == 0, "\(load.stderr)")
    // script(1) gives ctl a terminal for its stdout.
    let onTerminal = try Splay.run(
      ["-qec", "\(Splay.binary) ctl --socket \(server.path) status", "/dev/null"], program: "/usr/bin/script")
    #expect(onTerminal.stdout.contains("Sweep 30 s — splay fixtures"), "\(onTerminal.stdout)")
    #expect(onTerminal.stdout.contains("[stopped] #1/1   0:00/0:30 (0%)"), "\(onTerminal.stdout)")
    #expect(onTerminal.stdout.contains("volume: 100%"), "\(onTerminal.stdout)")
    let forced = try Splay.run(
      ["-qec", "\(Splay.binary) ctl --json --socket \(server.path) status", "/dev/null"],
      program: "/usr/bin/script")
    #expect(forced.stdout.hasPrefix("{"), "\(forced.stdout)")
    let piped = try Splay.run(["ctl", "--socket", server.path, "status"])
    #expect(piped.jsonLines.first?["status"] as? String == "stopped")
    let help = try Splay.run(["ctl", "--help"])
    for command in ["load", "enqueue", "seek", "volume", "jump", "status", "follow", "quit"] {
      #expect(help.stdout.contains(command), "ctl --help names \(command)")
    }
  }
}
