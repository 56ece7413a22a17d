import AudioTestSupport
import Foundation
import Testing

/// The per-client limit of docs/protocol.md: at most 256 requests of one client wait for the player at once;
/// beyond that `serve` stops reading that client until answers go out, and keeps serving everybody else.
///
/// The requests must really be held, so the audio server is frozen (SIGSTOP) under a loaded track: the first
/// `volume` waits for an acknowledgement that cannot come and the others queue behind it.
@Suite(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct ServeBackPressureTests {
  static let sandbox = Splay.root + "/scripts/pulse-sandbox"
  /// docs/protocol.md's limit of requests in flight per client.
  static let limit = 256
  /// Each request is padded with JSON whitespace to this many bytes, so that what the kernel's socket buffer
  /// and one NIO read can hold beyond the limit is a few requests, not hundreds.
  static let lineLength = 32 * 1024

  private static func line(id: Int, volume: Int) -> [UInt8] {
    let request = #"{"id": \#(id), "command": "volume", "args": [\#(volume)]"#
    let padding = lineLength - request.utf8.count - 2
    return Array((request + String(repeating: " ", count: padding) + "}\n").utf8)
  }

  /// Writes `bytes` without blocking until the peer has stopped taking them for `quiet` seconds (or all
  /// are written); returns how many it took.
  private func writeUntilStalled(_ fd: Int32, _ bytes: [UInt8], quiet: Double) -> Int {
    var offset = 0
    var stalledSince: Double?
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n > 0 {
        offset += n
        stalledSince = nil
        continue
      }
      guard n < 0, errno == EAGAIN || errno == EWOULDBLOCK else { break }
      let now = Double(MonitorRecorder.now()) / 1e9
      if let since = stalledSince, now - since >= quiet { break }
      stalledSince = stalledSince ?? now
      var pending = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      _ = poll(&pending, 1, 50)
    }
    return offset
  }

  private func setBlocking(_ fd: Int32, _ blocking: Bool) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK)
  }

  @Test func aClientBeyondTheLimitIsNotReadUntilAnswersGoOutAndOthersAreStillServed() async throws {
    try await ExclusiveSink.run {
      let server = try Server(output: "pulse", extra: ["--deadline", "60"])
      let client = try ControlClient(path: server.path)
      client.request(["id": 0, "command": "load", "args": [Splay.fixture("media/sweep-30s.flac")]])
      #expect(client.next()?["ok"] as? Bool == true)

      let found = try PulseEnvironment.run(Self.sandbox, ["pid"])
      let daemon = try #require(pid_t(found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "no pid")
      kill(daemon, SIGSTOP)
      var stopped = true
      defer { if stopped { kill(daemon, SIGCONT) } }

      let count = 600
      let requests = (1...count).flatMap { Self.line(id: $0, volume: $0 % 101) }
      setBlocking(client.fd, false)
      let taken = writeUntilStalled(client.fd, requests, quiet: 1.0)
      let linesTaken = taken / Self.lineLength
      // What the server read is at least the limit; beyond it only what the socket buffer and the reads that
      // were already under way hold (a few 32 KiB lines). Without the limit it would have read all 600.
      #expect(linesTaken >= Self.limit, "the server read only \(linesTaken) requests")
      #expect(linesTaken <= Self.limit + 24, "the server kept reading: \(linesTaken) requests taken")

      // The held client does not hold the server: another client is answered at once.
      let other = try ControlClient(path: server.path)
      other.request(["id": "other", "command": "subscribe"])
      let answer = other.next()
      #expect(answer?["ok"] as? Bool == true && answer?["id"] as? String == "other", "\(String(describing: answer))")

      kill(daemon, SIGCONT)
      stopped = false
      setBlocking(client.fd, true)
      client.send(bytes: Array(requests[taken...]))
      var ids: [Int] = []
      while ids.count < count, let reply = client.next() {
        guard reply["ok"] as? Bool == true else {
          Issue.record("a request failed: \(reply)")
          break
        }
        ids.append(reply["id"] as? Int ?? -1)
      }
      #expect(ids == Array(1...count), "every request answered once, in order (\(ids.count) of \(count))")
      client.request(["id": "last", "command": "status"])
      #expect((client.next()?["state"] as? [String: Any])?["volume"] as? Int == count % 101)
    }
  }
}
