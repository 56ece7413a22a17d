import AudioTestSupport
import Foundation

/// A minimal JSON-lines client of the control socket, for tests.
final class ControlClient {
  let fd: Int32
  private var buffer = Data()

  init(path: String) throws {
    // `self.fd` is set only once connected: a class whose initializer throws after every property is set runs
    // its deinit, which closed the descriptor a second time — by then perhaps another test's pipe (polling a
    // server that is not listening yet made that frequent, and splay children died of SIGPIPE).
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let result = withUnixSocketAddress(path) { connect(fd, $0, $1) }
    guard result == 0 else {
      close(fd)
      throw POSIXError(.ECONNREFUSED)
    }
    self.fd = fd
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { close(fd) }

  /// Sends raw text (a newline is not added).
  func send(_ text: String) {
    send(bytes: Array(text.utf8))
  }

  /// Sends raw bytes, which need not be UTF-8. Stops quietly when the server has closed the connection
  /// (MSG_NOSIGNAL: a closed peer must not kill the test process with SIGPIPE).
  func send(bytes data: [UInt8]) {
    var offset = 0
    while offset < data.count {
      let n = data[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n <= 0 { return }
      offset += n
    }
  }

  /// Sends one request object.
  func request(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object)
    send(String(decoding: data, as: UTF8.self) + "\n")
  }

  /// The next line as a JSON object; nil at end of stream or after the receive timeout.
  func next() -> [String: Any]? {
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = buffer[buffer.startIndex..<newline]
        buffer = Data(buffer[(newline + 1)...])
        return (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] ?? ["unparsable": true]
      }
      var chunk = [UInt8](repeating: 0, count: 65_536)
      let n = read(fd, &chunk, chunk.count)
      guard n > 0 else { return nil }
      buffer.append(contentsOf: chunk[0..<n])
    }
  }
}

extension ControlClient {
  /// True once a connection to `path` succeeds, within `seconds`: the socket file appears at bind, a moment
  /// before the server listens.
  static func waitForListener(at path: String, within seconds: Double = 5) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if (try? ControlClient(path: path)) != nil { return true }
      usleep(10_000)
    }
    return false
  }
}

/// A `splay serve` (by default `--output simulated`) on a private socket, ended with the test.
final class Server {
  let path: String
  let process: ChildProcess
  /// Where the server's stderr goes, when the test reads it.
  let log: String?

  /// `environment` is added to the test process's own (a test's session bus address).
  init(
    output: String = "simulated", extra: [String] = [], keepingLog: Bool = false, environment: [String: String] = [:]
  ) throws {
    let base =
      FileManager.default.temporaryDirectory.path + "/splay-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    path = base + ".sock"
    log = keepingLog ? base + ".log" : nil
    process = try ChildProcess(
      [Splay.binary, "serve", "--output", output, "--socket", path, "--no-resume"] + extra,
      environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, stderr: log ?? "/dev/null")
    _ = ControlClient.waitForListener(at: path)
  }

  deinit {
    unlink(path)
    if let log { unlink(log) }
  }

  /// True once the server said it serves (with `keepingLog`), within 5 s: its socket then has its final mode.
  func waitUntilServing() -> Bool {
    let deadline = Date().addingTimeInterval(5)
    while !stderr.contains("serving on"), Date() < deadline { usleep(5_000) }
    return stderr.contains("serving on")
  }

  /// What the server has written to stderr so far (with `keepingLog`).
  var stderr: String {
    log.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
  }
}
