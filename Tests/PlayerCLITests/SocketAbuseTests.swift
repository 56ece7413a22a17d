import AudioTestSupport
import Foundation
import Testing

/// `splay serve` against clients that misbehave: every bad request is answered (or the connection closed) as
/// docs/protocol.md says, and the server keeps playing and keeps serving the others.
@Suite struct SocketAbuseTests {
  /// A request line, the error code of its reply, and the id the reply must echo.
  struct BadRequest: Sendable, CustomTestStringConvertible {
    var line: [UInt8]
    var code: String
    var id: Int?
    var testDescription: String { String(decoding: line.prefix(60), as: UTF8.self) }

    init(_ text: String, _ code: String, id: Int? = nil) {
      self.init(bytes: Array(text.utf8), code, id: id)
    }
    init(bytes: [UInt8], _ code: String, id: Int? = nil) {
      line = bytes
      self.code = code
      self.id = id
    }
  }

  static let badRequests: [BadRequest] = [
    BadRequest("{", "bad-request"),
    BadRequest(String(repeating: "[", count: 60_000), "bad-request"),
    BadRequest("[]", "bad-request"),
    BadRequest(#""play""#, "bad-request"),
    BadRequest("123", "bad-request"),
    BadRequest(bytes: [0xFF, 0xFE, 0x00, 0x7B], "bad-request"),
    BadRequest(#"{"id": 1, "command": 5}"#, "bad-request", id: 1),
    BadRequest(#"{"id": {}, "command": "play"}"#, "bad-request"),
    BadRequest(#"{"id": 1.5, "command": "play"}"#, "bad-request"),
    BadRequest(#"{"id": "\#(String(repeating: "x", count: 300))", "command": "play"}"#, "bad-request"),
    BadRequest(#"{"id": 9223372036854775808, "command": "play"}"#, "bad-request"),
    BadRequest(#"{"id": 1, "command": "seek", "args": "5"}"#, "bad-request", id: 1),
    BadRequest(#"{"id": 1, "command": "seek", "args": [null]}"#, "bad-request", id: 1),
    BadRequest(#"{"id": 1, "command": "seek", "args": [1e999]}"#, "bad-request", id: 1),
    BadRequest(#"{"id": 1, "command": "seek", "args": [NaN]}"#, "bad-request"),
    // These two crashed the server (an exponent-form number overflowed Int64 while being turned into text).
    BadRequest(#"{"id": 1, "command": "volume", "args": [-1e308]}"#, "bad-arguments", id: 1),
    BadRequest(#"{"id": 1, "command": "seek", "args": [1e300]}"#, "bad-arguments", id: 1),
    BadRequest(#"{"id": 1, "command": "jump", "args": [1e18]}"#, "bad-arguments", id: 1),
    BadRequest(#"{"id": 1, "command": "volume", "args": [-101]}"#, "bad-arguments", id: 1),
    BadRequest(#"{"id": 1, "command": "dance"}"#, "unknown-command", id: 1),
    BadRequest(#"{"id": 1, "command": "status", "args": [1]}"#, "bad-arguments", id: 1),
    BadRequest(#"{"id": 1, "command": "play", "args": ["now"]}"#, "bad-arguments", id: 1),
    BadRequest(#"{"id": 1, "command": "load", "args": []}"#, "bad-arguments", id: 1),
    BadRequest(#"{"id": 1, "command": "load", "args": ["/etc/passwd\u0000.flac"]}"#, "bad-arguments", id: 1),
    BadRequest(#"{"id": 1, "command": ""}"#, "bad-arguments", id: 1),
    BadRequest(#"{"id": 1, "command": "seek +5 extra"}"#, "bad-arguments", id: 1),
  ]

  @Test(arguments: badRequests)
  func aBadRequestIsAnsweredAndTheConnectionStaysUsable(request: BadRequest) throws {
    let server = try Server()
    let client = try ControlClient(path: server.path)
    client.send(bytes: request.line + [0x0A])
    let reply = try #require(client.next(), "no reply")
    #expect(reply["ok"] as? Bool == false)
    #expect((reply["error"] as? [String: Any])?["code"] as? String == request.code, "\(reply)")
    #expect(reply["id"] as? Int == request.id)
    client.request(["id": 2, "command": "status"])
    #expect(client.next()?["ok"] as? Bool == true, "the connection is still usable")
    #expect(server.process.isRunning)
  }

  @Test func tenThousandPipelinedRequestsAreAnsweredInOrder() throws {
    let server = try Server()
    let client = try ControlClient(path: server.path)
    client.request(["id": 0, "command": "load", "args": [Splay.fixture("media/sweep-30s.flac")]])
    #expect(client.next()?["ok"] as? Bool == true)
    let count = 10_000
    var text = ""
    for i in 1...count {
      // Every seventh request is an unknown command, answered in its place.
      let command = i % 7 == 0 ? #""dance""# : #""volume", "args": [\#(i % 101)]"#
      text += #"{"id": \#(i), "command": \#(command)}"# + "\n"
    }
    client.send(text)
    // docs/protocol.md: one reply per request; player commands are answered in request order, while an
    // error the server finds itself (here unknown-command) may overtake replies still waiting for the player.
    var playerIDs: [Int] = []
    var refusedIDs: [Int] = []
    while playerIDs.count + refusedIDs.count < count, let reply = client.next() {
      let id = reply["id"] as? Int ?? -1
      if reply["ok"] as? Bool == true {
        playerIDs.append(id)
      } else if (reply["error"] as? [String: Any])?["code"] as? String == "unknown-command" {
        refusedIDs.append(id)
      }
    }
    let expected = (1...count).filter { $0 % 7 != 0 }
    #expect(playerIDs == expected, "player replies in request order (\(playerIDs.count) of \(expected.count))")
    #expect(refusedIDs.sorted() == (1...count).filter { $0 % 7 == 0 }, "each unknown command answered once")
    client.request(["id": "last", "command": "status"])
    #expect((client.next()?["state"] as? [String: Any])?["volume"] as? Int == count % 101)
  }

  @Test func fiftyClientsAtOnceAreAllServedInTheirOwnOrder() throws {
    let server = try Server()
    let path = server.path
    let answered = Counter()
    DispatchQueue.concurrentPerform(iterations: 50) { n in
      guard let client = try? ControlClient(path: path) else { return }
      var text = ""
      for i in 0..<20 {
        let command = i % 2 == 0 ? "status" : "volume \(n)"
        text += #"{"id": \#(n * 100 + i), "command": "\#(command)"}"# + "\n"
      }
      client.send(text)
      var ids: [Int] = []
      while ids.count < 20, let reply = client.next(), reply["ok"] as? Bool == true {
        ids.append(reply["id"] as? Int ?? -1)
      }
      if ids == (0..<20).map({ n * 100 + $0 }) { answered.increment() }
    }
    #expect(answered.value == 50)
  }

  @Test func clientsBeyondTheLimitAreToldAndClosedAndALeavingClientFreesItsPlace() throws {
    let server = try Server(extra: ["--max-clients", "50"])
    var clients: [ControlClient] = []
    for i in 0..<50 {
      let client = try ControlClient(path: server.path)
      client.request(["id": i, "command": "status"])
      #expect(client.next()?["ok"] as? Bool == true)
      clients.append(client)
    }
    let extra = try ControlClient(path: server.path)
    let refusal = try #require(extra.next())
    #expect((refusal["error"] as? [String: Any])?["code"] as? String == "limit-exceeded")
    #expect(extra.next() == nil, "closed after the reply")
    clients.removeLast()
    var admitted = false
    for _ in 0..<100 where !admitted {
      let again = try ControlClient(path: server.path)
      again.request(["id": 1, "command": "status"])
      admitted = again.next()?["ok"] as? Bool == true
      if !admitted { usleep(20_000) }
    }
    #expect(admitted, "the place of a client that left is free again")
  }

  @Test func aClientThatNeverReadsStallsAloneWhileThePlayerPlaysAndOthersAreServed() throws {
    let server = try Server()
    let other = try ControlClient(path: server.path)
    other.request(["id": 1, "command": "load", "args": [Splay.fixture("media/sweep-30s.flac")]])
    other.request(["id": 2, "command": "play"])
    #expect(other.next()?["ok"] as? Bool == true)
    #expect(other.next()?["ok"] as? Bool == true)

    // The lazy client writes status requests as fast as the server takes them and never reads a reply.
    let lazy = try ControlClient(path: server.path)
    let flags = fcntl(lazy.fd, F_GETFL)
    _ = fcntl(lazy.fd, F_SETFL, flags | O_NONBLOCK)
    let chunk = Array(String(repeating: #"{"id": 1, "command": "status"}"# + "\n", count: 1000).utf8)
    var sent = 0
    var lastProgress = Date()
    var stalled = false
    let start = Date()
    while Date().timeIntervalSince(start) < 15 {
      let n = chunk.withUnsafeBytes { send(lazy.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n > 0 {
        sent += n
        lastProgress = Date()
      } else if Date().timeIntervalSince(lastProgress) > 1 {
        stalled = true
        break
      } else {
        usleep(5_000)
      }
    }
    // Without back-pressure on unread replies the server read every request and queued every reply: the
    // client never stalled and the server grew by about 170 MB per 300,000 requests.
    #expect(stalled, "the server kept reading from a client that reads nothing (\(sent) bytes taken)")

    // Under a sanitizer (`make asan` sets SPLAY_SANITIZER) the server's memory also holds the sanitizer's
    // quarantine and shadow, and everything runs slower: the memory bound and the reply time below are the
    // product's, as `make test` measures them.
    let sanitizer = Sanitizer.name
    var positions: [Double] = []
    for i in 0..<3 {
      let asked = Date()
      other.request(["id": 10 + i, "command": "status"])
      let reply = try #require(other.next())
      #expect(
        Date().timeIntervalSince(asked) < (sanitizer == nil ? 3 : 8),
        "another client is answered (blocked, it would wait 10 s for nothing)")
      let state = try #require(reply["state"] as? [String: Any])
      #expect(state["status"] as? String == "playing")
      positions.append((state["position"] as? [String: Any])?["seconds"] as? Double ?? -1)
      usleep(300_000)
    }
    #expect(positions == positions.sorted() && positions.first! < positions.last!, "the player keeps playing")
    try Skip.when(sanitizer.map { "the server's resident memory not checked under the \($0) sanitizer" })
    #expect(Self.residentMegabytes(server.process.processIdentifier) < 150)
  }

  @Test func clientsThatDisconnectMidReplyDoNotDisturbTheServer() throws {
    let server = try Server()
    let setup = try ControlClient(path: server.path)
    // A queue of 10,000 tracks (the limit) makes every reply about 600 KB, far more than one write.
    let file = Splay.fixture("media/short-44k-stereo.flac")
    // In requests of 500 paths: a request line is limited to 64 KiB.
    setup.request(["id": 0, "command": "load", "args": Array(repeating: file, count: 500)])
    for batch in 1..<20 {
      setup.request(["id": batch, "command": "enqueue", "args": Array(repeating: file, count: 500)])
    }
    for _ in 0..<20 { #expect(setup.next()?["ok"] as? Bool == true) }
    for round in 0..<20 {
      let rude = try ControlClient(path: server.path)
      rude.request(["id": round, "command": "subscribe"])
      for i in 0..<5 { rude.request(["id": i, "command": "status"]) }
      var byte: UInt8 = 0
      _ = read(rude.fd, &byte, 1)
      // Reset, not a clean close: the server's next write fails at once.
      var linger = linger(l_onoff: 1, l_linger: 0)
      setsockopt(rude.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
    }
    setup.request(["id": 2, "command": "volume", "args": [30]])
    let reply = try #require(setup.next())
    #expect(reply["ok"] as? Bool == true)
    #expect((reply["state"] as? [String: Any])?["volume"] as? Int == 30)
    #expect(server.process.isRunning)
  }

  @Test func linesUpTo64KiBAreReadAndLongerOnesAreAnsweredThenClosed() throws {
    let server = try Server()
    let request = #"{"id": 1, "command": "status"}"#
    let exact = request + String(repeating: " ", count: 65_536 - request.utf8.count)
    let fits = try ControlClient(path: server.path)
    fits.send(exact + "\n")
    #expect(fits.next()?["ok"] as? Bool == true, "a line of exactly 64 KiB is a request")

    let over = try ControlClient(path: server.path)
    over.send(exact + " \n")
    #expect((over.next()?["error"] as? [String: Any])?["code"] as? String == "line-too-long")
    #expect(over.next() == nil, "closed after the reply")

    // A megabyte with no newline at all: refused as soon as it passes the limit, without waiting for the end.
    let endless = try ControlClient(path: server.path)
    endless.send(String(repeating: "y", count: 1 << 20))
    #expect((endless.next()?["error"] as? [String: Any])?["code"] as? String == "line-too-long")
    #expect(endless.next() == nil)

    let other = try ControlClient(path: server.path)
    other.request(["id": 1, "command": "status"])
    #expect(other.next()?["ok"] as? Bool == true)
  }

  /// The resident memory of a process in MiB, from /proc.
  static func residentMegabytes(_ pid: Int32) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kilobytes = Double(line.split(separator: " ")[1])
    else { return 0 }
    return kilobytes / 1024
  }
}

/// A thread-safe count for tests.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func increment() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}
