import ArgumentParser
import Foundation
import PlayerCore

/// `splay ctl COMMAND [ARGS...]`: one request to a running `splay serve`.
struct CtlCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ctl",
    abstract: "Send one command to a running 'splay serve' and print the confirmed state.",
    discussion: """
      Waits until the command is confirmed, prints the state as JSON and exits 0; prints the error and exits 1 \
      when the command fails. 'splay ctl status' prints the state; 'splay ctl follow' prints every state \
      change as JSON lines until interrupted.
      Examples: splay ctl load a.flac b.mp3   splay ctl seek -5   splay ctl volume 40%   splay ctl quit
      """)

  @Option(name: .long, help: ArgumentHelp("The socket path (default $XDG_RUNTIME_DIR/splay.sock).", valueName: "path"))
  var socket: String?

  @Argument(help: ArgumentHelp("The command: a player command, status, follow or quit.", valueName: "command"))
  var command: String

  @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The command's arguments.", valueName: "args"))
  var arguments: [String] = []

  func run() async throws {
    let path = try socket ?? SocketPath.defaultPath()
    let name = command.lowercased()
    let follow = name == "follow"
    let requestName = follow ? "subscribe" : name
    if !["status", "subscribe", "unsubscribe", "quit"].contains(requestName) {
      do {
        _ = try CommandParser.parse(name: command, arguments: arguments)
      } catch {
        throw CLIError(message: "ctl \(command): \(error.message)", status: .usage)
      }
    }
    // A server that refuses this client closes the connection, maybe before the request is written: that must
    // be an error to report (with the server's reason, read below), not a SIGPIPE that kills ctl silently.
    signal(SIGPIPE, SIG_IGN)
    let fd = try SocketPath.connect(path)
    defer { close(fd) }
    // The server opens files relative to its own folder: send the paths as this shell sees them.
    let isPathCommand = ["load", "enqueue", "add"].contains(name)
    let cwd = FileManager.default.currentDirectoryPath
    let sent = isPathCommand ? arguments.map { $0.hasPrefix("/") ? $0 : cwd + "/" + $0 } : arguments
    let request: [String: Any] = ["id": 1, "command": requestName, "args": sent]
    var line = try JSONSerialization.data(withJSONObject: request, options: [.withoutEscapingSlashes])
    line.append(UInt8(ascii: "\n"))
    // When the server has closed the connection already, its reply (a refusal) may still be there to read.
    _ = try writeAll(fd, line)
    let reader = LineReader(fd: fd)
    guard let reply = reader.next() else {
      throw CLIError(message: "\(path): the server closed the connection without a reply", status: .failed)
    }
    guard let object = try? JSONSerialization.jsonObject(with: reply) as? [String: Any] else {
      throw CLIError(message: "\(path): unreadable reply", status: .failed)
    }
    if object["ok"] as? Bool != true {
      let error = object["error"] as? [String: Any]
      let message = error?["message"] as? String ?? "failed"
      let code = error?["code"] as? String ?? "error"
      throw CLIError(message: "\(command): \(code): \(message)", status: .failed)
    }
    if follow {
      Console.out(Self.compact(object["state"] ?? [:]))
      while let event = reader.next(),
        let object = try? JSONSerialization.jsonObject(with: event) as? [String: Any],
        let state = object["state"]
      {
        Console.out(Self.compact(state))
      }
      return
    }
    Console.out(Self.compact(object["state"] ?? [:]))
  }

  /// Writes all of `data`; returns false when the server closed the connection first (EPIPE, ECONNRESET).
  private func writeAll(_ fd: Int32, _ data: Data) throws -> Bool {
    try data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
        if n < 0, errno == EINTR { continue }
        if n < 0, errno == EPIPE || errno == ECONNRESET { return false }
        guard n > 0 else {
          throw CLIError(message: "write failed: \(String(cString: strerror(errno)))", status: .failed)
        }
        offset += n
      }
      return true
    }
  }

  static func compact(_ value: Any) -> String {
    guard
      let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
    else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }
}

/// Reads newline-terminated lines from a descriptor.
final class LineReader {
  private let fd: Int32
  private var buffer = Data()

  init(fd: Int32) { self.fd = fd }

  /// The next line without its newline, or nil at end of stream.
  func next() -> Data? {
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = buffer[buffer.startIndex..<newline]
        buffer = Data(buffer[(newline + 1)...])
        return Data(line)
      }
      var chunk = [UInt8](repeating: 0, count: 65_536)
      let n = read(fd, &chunk, chunk.count)
      guard n > 0 else { return nil }
      buffer.append(contentsOf: chunk[0..<n])
    }
  }
}
