import ArgumentParser
import ControlProtocol
import Dispatch
import FoundationEssentials
import Glibc
import PlayerCore

/// `splay ctl COMMAND [ARGS...]`: one request to a running `splay serve`.
struct CtlCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ctl",
    abstract: "Send one command to a running 'splay serve' and print the confirmed state.",
    discussion: """
      Waits until the command is confirmed and prints the confirmed state: a readable summary on a terminal, \
      one JSON object when piped or with --json; prints the error and exits 1 when the command fails.
      Commands:
        load PATH...      replace the queue (files, folders, playlists) and stop at its first track
        enqueue PATH...   add to the end of the queue
        play, pause, toggle, stop
        seek TIME         12.5, 1:30, 50%, +5, -5
        volume LEVEL      40, 40%, +5, -5
        mute [on|off]     the server's mute flag (the volume stays); alone it toggles
        next, previous, jump N   (N counts from 1)
        repeat off|all|one, shuffle on|off
        status            print the current state
        queue [FROM [N]]  print the queue's paths (states carry its length only)
        follow            print every state change until interrupted
        quit              stop the server
        help              print this help
      Options may come before or after the command (splay ctl status --json).
      Examples: splay ctl load ~/Music   splay ctl seek -5   splay ctl volume 40%   splay ctl status
      """)

  @Flag(name: .long, help: "Print JSON even on a terminal.")
  var json = false

  @Option(name: .long, help: ArgumentHelp("The socket path (default $XDG_RUNTIME_DIR/splay.sock).", valueName: "path"))
  var socket: String?

  @Argument(help: ArgumentHelp("The command: a player command, status, follow or quit.", valueName: "command"))
  var command: String

  // Not passthrough: `--json` and `--socket` after the command are options, as anywhere else; what is not an
  // option of ctl (a negative number: `seek -5`) stays an argument, in order.
  @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The command's arguments.", valueName: "args"))
  var arguments: [String] = []

  func run() async throws {
    let name = command.lowercased()
    if name == "help" {
      return Console.out(Self.helpMessage())
    }
    let path = try socket ?? SocketPath.defaultPath()
    let follow = name == "follow"
    let requestName = follow ? "subscribe" : name
    if !["status", "subscribe", "unsubscribe", "quit", "queue"].contains(requestName) {
      do {
        _ = try CommandParser.parse(name: command, arguments: arguments)
      } catch {
        throw CLIError(message: "ctl \(command): \(error.message)", status: .usage)
      }
    }
    let fd = try SocketPath.connect(path)
    defer { close(fd) }
    if name == "queue" { return try printQueue(fd: fd, path: path) }
    // The server opens files relative to its own folder: send the paths as this shell sees them.
    let isPathCommand = ["load", "enqueue", "add"].contains(name)
    let cwd = FileManager.default.currentDirectoryPath
    let sent = isPathCommand ? arguments.map { $0.hasPrefix("/") ? $0 : cwd + "/" + $0 } : arguments
    var line = Data(ControlRequestLine(command: requestName, args: sent).line().utf8)
    line.append(UInt8(ascii: "\n"))
    // A server that refuses this client (another user, too many clients) answers and closes at once, maybe
    // before the request is written: the write then fails, but the answer is there to read.
    let writeFailure = writeAll(fd, line)
    let reader = LineReader(fd: fd)
    guard let reply = reader.next() else {
      let reason =
        writeFailure.map { "cannot send the request (\($0))" } ?? "the server closed the connection without a reply"
      throw CLIError(message: "\(path): \(reason)", status: .failed)
    }
    guard let answer = ControlReplyLine.decode(reply) else {
      throw CLIError(message: "\(path): unreadable reply", status: .failed)
    }
    if answer.ok != true {
      throw CLIError(
        message: "\(command): \(answer.error?.code ?? "error"): \(answer.error?.message ?? "failed")", status: .failed)
    }
    for skipped in answer.skipped ?? [] { Console.error(skipped) }
    let readable = !json && Console.stdoutIsTerminal
    if let state = answer.state {
      Console.out(readable ? (follow ? StatusText.line(state) : StatusText.summary(state)) : state.jsonText)
    } else {
      Console.out("{}")
    }
    if follow {
      while let event = reader.next(), let line = ControlReplyLine.decode(event) {
        guard let state = line.state else {
          // The server let this client go (it read too slowly) or failed an event: not a clean end.
          guard line.ok == false else { continue }
          throw CLIError(
            message: "follow: \(line.error?.code ?? "error"): \(line.error?.message ?? "failed")", status: .failed)
        }
        Console.out(readable ? StatusText.line(state) : state.jsonText)
      }
    }
  }

  /// `ctl queue [FROM [N]]`: the page asked for, or without arguments every page of one revision; numbered
  /// from 1 on a terminal, as one `{"queue": {...}}` line otherwise.
  private func printQueue(fd: Int32, path: String) throws {
    let reader = LineReader(fd: fd)
    var offset = arguments.first.flatMap { Int($0) } ?? 0
    let count = arguments.count > 1 ? arguments[1] : String(QueuePage.maximumCount)
    var whole: QueuePage?
    while true {
      var line = Data(ControlRequestLine(command: "queue", args: [String(offset), count]).line().utf8)
      line.append(UInt8(ascii: "\n"))
      if let failure = writeAll(fd, line) {
        throw CLIError(message: "\(path): cannot send the request (\(failure))", status: .failed)
      }
      guard let reply = reader.next(), let answer = ControlReplyLine.decode(reply) else {
        throw CLIError(message: "\(path): the server closed the connection without a reply", status: .failed)
      }
      guard answer.ok == true, let page = answer.queue else {
        throw CLIError(
          message: "queue: \(answer.error?.code ?? "error"): \(answer.error?.message ?? "failed")", status: .usage)
      }
      if let earlier = whole, earlier.revision != page.revision {
        // The queue changed between two pages: start again, so that the list is one revision's.
        (whole, offset) = (nil, 0)
        continue
      }
      if whole == nil { whole = page } else { whole?.paths += page.paths }
      offset = page.offset + page.paths.count
      // One page when asked for one; otherwise on to the end.
      if !arguments.isEmpty || page.paths.isEmpty || offset >= page.length { break }
    }
    guard let whole else { return }
    guard !json && Console.stdoutIsTerminal else { return Console.out(whole.jsonText) }
    for (number, entry) in whole.paths.enumerated() { Console.out("\(whole.offset + number + 1)  \(entry)") }
  }

  /// Writes all of `data`; returns why it could not, or nil. MSG_NOSIGNAL: a server that closed the connection
  /// must not kill ctl with SIGPIPE before it reads the server's explanation.
  private func writeAll(_ fd: Int32, _ data: Data) -> String? {
    data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
        guard n > 0 else { return String(cString: strerror(errno)) }
        offset += n
      }
      return nil
    }
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

/// The request `ctl` sends: one line of JSON, as docs/protocol.md describes it.
private struct ControlRequestLine: Encodable {
  var id = 1
  var command: String
  var args: [String]

  func line() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Strings and an integer always encode.
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }
}

/// What `ctl` reads of a reply or event line: whether it succeeded, the state, the error.
private struct ControlReplyLine: Decodable {
  struct ErrorBody: Decodable {
    var code: String?
    var message: String?
  }

  var ok: Bool?
  var state: PlayerState?
  var error: ErrorBody?
  var skipped: [String]?
  var queue: QueuePage?

  /// The line decoded, or nil when it is not a reply this version understands.
  static func decode(_ line: Data) -> ControlReplyLine? {
    try? JSONDecoder().decode(ControlReplyLine.self, from: line)
  }
}
