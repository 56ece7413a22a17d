import Foundation

/// fixtures/servers/radio.py on 127.0.0.1, for the tests of streams: files with byte ranges, a live WAV with
/// ICY titles, a connection that drops, one that never answers, garbage. Stopped when the value goes.
public final class RadioServer: @unchecked Sendable {
  private let process: ChildProcess
  /// The port it listens on.
  public let port: Int

  /// Starts the server; throws when it does not say its port within 5 s.
  public init() throws {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    let script = url.path + "/fixtures/servers/radio.py"
    process = try ChildProcess(["python3", script], pipingStdout: true)
    guard let line = Self.firstLine(of: process.stdoutPipe!, within: 5), let port = Int(line) else {
      process.terminate()
      _ = process.wait(timeout: 5)
      throw POSIXError(.ETIMEDOUT)
    }
    self.port = port
  }

  deinit {
    process.terminate()
    _ = process.wait(timeout: 5)
  }

  /// `http://127.0.0.1:PORT` + `path` (which starts with `/`).
  public func url(_ path: String) -> String { "http://127.0.0.1:\(port)" + path }

  private static func firstLine(of pipe: FileHandle, within seconds: Double) -> String? {
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(seconds)
    var poller = pollfd(fd: pipe.fileDescriptor, events: Int16(POLLIN), revents: 0)
    while Date() < deadline {
      guard poll(&poller, 1, 100) > 0 else { continue }
      var byte: UInt8 = 0
      guard read(pipe.fileDescriptor, &byte, 1) == 1 else { return nil }
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
    return nil
  }
}
