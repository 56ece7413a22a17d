import ArgumentParser
import ControlProtocol
import Dispatch
import FoundationEssentials
import Glibc
import PlayerCore
import SplayConsole

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
        load --search QUERY, enqueue --search QUERY   the library's tracks that QUERY finds
        search QUERY      print the paths of the library's matching tracks (as 'splay search')
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

  @Option(
    name: .long,
    help: ArgumentHelp("The socket path (default: the config's, else $XDG_RUNTIME_DIR/splay.sock).", valueName: "path"))
  var socket: String?

  @Argument(help: ArgumentHelp("The command: a player command, status, follow or quit.", valueName: "command"))
  var command: String

  // Not passthrough: `--json` and `--socket` after the command are options, as anywhere else; what is not an
  // option of ctl (a negative number: `seek -5`) stays an argument, in order.
  @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The command's arguments.", valueName: "args"))
  var arguments: [String] = []

  /// `arguments` with `--search QUERY` (or `--search=QUERY`) replaced by the paths the query finds.
  static func searched(_ arguments: [String]) throws -> [String] {
    var paths: [String] = []
    var rest = arguments[...]
    while let argument = rest.popFirst() {
      if argument == "--search" {
        guard let query = rest.popFirst() else { throw CLIError(message: "--search needs a query", status: .usage) }
        paths += try LibraryProgram.paths(matching: query)
      } else if argument.hasPrefix("--search=") {
        paths += try LibraryProgram.paths(matching: String(argument.dropFirst("--search=".count)))
      } else {
        paths.append(argument)
      }
    }
    return paths
  }

  func run() async throws {
    let name = command.lowercased()
    if name == "help" {
      return Console.out(Self.helpMessage())
    }
    // The library is this user's, read here: the server is sent the paths.
    if name == "search" { try LibraryProgram.become(["search"] + arguments) }
    let config = try ConfigFile.load()
    let path = try socket ?? config.socket?.value ?? SocketPath.defaultPath()
    let follow = name == "follow"
    // The server opens files relative to its own folder: send the paths as this shell sees them.
    let isPathCommand = ["load", "enqueue", "add"].contains(name)
    let cwd = FileManager.default.currentDirectoryPath
    var sent = isPathCommand ? try Self.searched(arguments) : arguments
    if isPathCommand { sent = sent.map { $0.hasPrefix("/") || StreamURL.isStream($0) ? $0 : cwd + "/" + $0 } }
    // Checked as the server will read it, so that a typo is a usage error here and not a failed command there.
    let request: ControlRequest
    switch ControlRequest.request(id: .number(1), command: follow ? "subscribe" : command, args: sent) {
    case .success(let checked): request = checked
    case .failure(let error): throw CLIError(message: "ctl \(command): \(error.message)", status: .usage)
    }
    let fd = try SocketPath.connect(path)
    defer { close(fd) }
    if case .queue(let offset, let count) = request.kind {
      // Without a count, every page of one revision: the whole queue.
      return try printQueue(fd: fd, path: path, from: offset, count: arguments.count > 1 ? count : nil)
    }
    // A server that refuses this client (another user, too many clients) answers and closes at once, maybe
    // before the request is written: the write then fails, but the answer is there to read.
    let writeFailure = writeAll(fd, request.lineBytes())
    let reader = LineReader(fd: fd)
    guard let reply = reader.next() else {
      let reason =
        writeFailure.map { "cannot send the request (\($0))" } ?? "the server closed the connection without a reply"
      throw CLIError(message: "\(path): \(reason)", status: .failed)
    }
    let readable = !json && Console.stdoutIsTerminal
    switch ControlMessage.read(reply) {
    case .success(_, let state, let skipped):
      for line in skipped { Console.error(line) }
      Console.out(readable ? (follow ? StatusText.line(state) : StatusText.summary(state)) : state.jsonText)
    case .failure(_, let code, let message, _):
      throw CLIError(message: "\(command): \(code): \(message)", status: .failed)
    case .event, .queue, nil:
      throw CLIError(message: "\(path): unreadable reply", status: .failed)
    }
    guard follow else { return }
    while let line = reader.next() {
      switch ControlMessage.read(line) {
      case .event(let state), .success(_, let state, _):
        Console.out(readable ? StatusText.line(state) : state.jsonText)
      case .failure(_, let code, let message, _):
        // The server let this client go (it read too slowly) or failed an event: not a clean end.
        throw CLIError(message: "follow: \(code): \(message)", status: .failed)
      case .queue, nil:
        continue
      }
    }
  }

  /// `ctl queue [FROM [N]]`: the page asked for, or without a count every page of one revision from `from`;
  /// numbered from 1 on a terminal, as one `{"queue": {...}}` line otherwise.
  private func printQueue(fd: Int32, path: String, from first: Int, count: Int?) throws {
    let reader = LineReader(fd: fd)
    var offset = first
    var whole: QueuePage?
    while true {
      let request = ControlRequest(id: .number(1), kind: .queue(offset: offset, count: count ?? QueuePage.maximumCount))
      if let failure = writeAll(fd, request.lineBytes()) {
        throw CLIError(message: "\(path): cannot send the request (\(failure))", status: .failed)
      }
      guard let reply = reader.next(), let answer = ControlMessage.read(reply) else {
        throw CLIError(message: "\(path): the server closed the connection without a reply", status: .failed)
      }
      guard case .queue(_, let page) = answer else {
        if case .failure(_, let code, let message, _) = answer {
          throw CLIError(message: "queue: \(code): \(message)", status: .usage)
        }
        throw CLIError(message: "\(path): unreadable reply", status: .failed)
      }
      if let earlier = whole, earlier.revision != page.revision {
        // The queue changed between two pages: start again, so that the list is one revision's.
        (whole, offset) = (nil, first)
        continue
      }
      if whole == nil { whole = page } else { whole?.paths += page.paths }
      offset = page.offset + page.paths.count
      // One page when asked for one; otherwise on to the end.
      if count != nil || page.paths.isEmpty || offset >= page.length { break }
    }
    guard let whole else { return }
    guard !json && Console.stdoutIsTerminal else { return Console.out(whole.jsonText) }
    for (number, entry) in whole.paths.enumerated() { Console.out("\(whole.offset + number + 1)  \(entry)") }
  }

  /// Writes all of `data`; returns why it could not, or nil. MSG_NOSIGNAL: a server that closed the connection
  /// must not kill ctl with SIGPIPE before it reads the server's explanation.
  private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
    bytes.withUnsafeBytes { raw in
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
