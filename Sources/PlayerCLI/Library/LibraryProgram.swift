import Glibc
import PlayerLibrary

/// `splay-library`, the program that holds the library index: `splay library` and `splay search` become it, and
/// `play --search` and `ctl load --search` run it for the paths a query finds. It lies beside `splay` (the
/// build folder, or the `bin` that `make install` fills); SQLite is loaded by it alone.
enum LibraryProgram {
  static let name = "splay-library"

  /// The program's path: beside this executable, else (unless `besideOnly`) the first on `PATH`.
  static func location(besideOnly: Bool = false) throws -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    if length > 0 {
      let own = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      let beside = own[..<(own.lastIndex(of: "/") ?? own.startIndex)] + "/" + name
      if access(beside, X_OK) == 0 { return String(beside) }
    }
    if besideOnly {
      throw CLIError(message: "\(name) is not installed beside splay (make install installs both)", status: .failed)
    }
    let searchPath = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin"
    for folder in searchPath.split(separator: ":") where access(folder + "/" + name, X_OK) == 0 {
      return folder + "/" + name
    }
    throw CLIError(
      message: "\(name) is not installed beside splay or on PATH (make install installs both)", status: .failed)
  }

  /// Becomes `splay-library ARGUMENTS`: its output, messages and exit status are the command's. With `paths`, it
  /// reads them on its stdin, NUL-separated. `besideOnly`: only the copy beside this executable, of the same
  /// build (one elsewhere on `PATH` may be older and not know the arguments).
  static func become(_ arguments: [String], reading paths: [String]? = nil, besideOnly: Bool = false) throws -> Never {
    let program = try location(besideOnly: besideOnly)
    if let paths {
      let file = try pathsFile(holding: paths)
      defer { close(file) }
      guard dup2(file, STDIN_FILENO) >= 0 else {
        throw CLIError(message: "a file for the paths: \(String(cString: strerror(errno)))", status: .failed)
      }
    }
    let argv = ([name] + arguments).map { strdup($0) } + [nil]
    execv(program, argv)
    let reason = String(cString: strerror(errno))
    throw CLIError(message: "\(program): \(reason)", status: .failed)
  }

  /// An unlinked file that holds `paths`, NUL-separated, read from its start, close-on-exec (only a duplicate
  /// of it is the program's): a whole collection's paths are megabytes, more than a pipe holds before the
  /// program starts reading.
  private static func pathsFile(holding paths: [String]) throws -> Int32 {
    func failure() -> CLIError {
      CLIError(message: "a file for the paths: \(String(cString: strerror(errno)))", status: .failed)
    }
    var template = Array(((getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/splay-paths-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw failure() }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    var bytes: [UInt8] = []
    for path in paths { bytes += path.utf8 + [0] }
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else {
        let error = failure()
        close(fd)
        throw error
      }
      written += count
    }
    guard lseek(fd, 0, SEEK_SET) == 0 else {
      let error = failure()
      close(fd)
      throw error
    }
    return fd
  }

  /// Whether this user has a library index (`splay library add` made one).
  static func indexExists() -> Bool {
    guard let index = LibraryLocations.ofThisProcess()?.index else { return false }
    return access(index, R_OK) == 0
  }

  /// The title, artist and album the library index holds for each of `paths` that it has, by path: empty
  /// without an index, or when the program cannot be run (the view's `/` then finds by paths alone).
  static func tagText(of paths: [String]) -> [String: String] {
    guard indexExists(), let program = try? location(besideOnly: true), let file = try? pathsFile(holding: paths)
    else { return [:] }
    defer { close(file) }
    guard let output = try? ChildOutput.run(program, [name, "tags"], stdin: file), output.status == 0 else {
      return [:]
    }
    let fields = output.bytes.split(separator: 0, omittingEmptySubsequences: false)
    var tags: [String: String] = [:]
    for start in stride(from: 0, to: fields.count - 1, by: 2) {
      tags[String(decoding: fields[start], as: UTF8.self)] = String(decoding: fields[start + 1], as: UTF8.self)
    }
    return tags
  }

  /// The paths of the library's tracks that `query` finds, in path order; none found is an error that says so.
  /// The program's own messages (an index made again, a scan's summary) reach stderr as they are.
  static func paths(matching query: String) throws -> [String] {
    let program = try location()
    let output = try ChildOutput.run(program, [name, "search", "--null", "--allow-none", "--", query])
    guard output.status == 0 else {
      // It said why on stderr.
      throw CLIError(message: "search '\(query)' failed", status: .failed)
    }
    let paths = output.bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    guard !paths.isEmpty else {
      throw CLIError(message: "search '\(query)': no track in the library matches", status: .fileError)
    }
    return paths
  }
}

/// A program run to its end with its standard output collected (its stderr is splay's).
struct ChildOutput {
  /// What it wrote.
  var bytes: [UInt8]
  /// Its exit status, or 128 + the signal that ended it.
  var status: Int32

  /// Runs `program` with `argv`, its stdin `stdin` (a descriptor of this process; this process's own when nil).
  static func run(_ program: String, _ argv: [String], stdin: Int32? = nil) throws -> ChildOutput {
    var ends: [Int32] = [-1, -1]
    // Close-on-exec from the start, so that no other child inherits an end (pipe2 is not in Swift's Glibc).
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
      throw CLIError(message: "\(program): \(String(cString: strerror(errno)))", status: .failed)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
    if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) }
    let arguments = argv.map { strdup($0) } + [nil]
    defer { for pointer in arguments { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, program, &actions, nil, arguments, environ)
    close(ends[1])
    defer { close(ends[0]) }
    guard spawned == 0 else {
      throw CLIError(message: "\(program): \(String(cString: strerror(spawned)))", status: .failed)
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    let signal = status & 0x7F
    return ChildOutput(bytes: bytes, status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
  }
}
