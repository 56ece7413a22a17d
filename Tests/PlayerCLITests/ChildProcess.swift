import Foundation

/// A child process started with `posix_spawn`, for the CLI tests.
///
/// Foundation's `Process` lets a child inherit every open descriptor of the test process, and `make test` runs
/// many tests at once: a `splay serve` started by one test kept another test's output pipe open, whose reader
/// then waited for an end of file that could not come, and `make test` hung. A `ChildProcess` gets
/// /dev/null or the files it is given as stdin, stdout and stderr, and nothing else; the test reaps it itself.
final class ChildProcess {
  let pid: pid_t
  private var exitStatus: Int32?

  /// Starts `arguments[0]` (an absolute path) with `arguments`, in `directory`, with the standard streams
  /// read from and written to the given files (created 0600 when missing, truncated).
  init(
    _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
    directory: String = Splay.root, stdin: String = "/dev/null", stdout: String = "/dev/null",
    stderr: String = "/dev/null"
  ) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = directory.withCString { Self.addChdir(&actions, $0) }
    _ = Self.addClosefrom(&actions, 3)
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
    self.pid = pid
  }

  deinit {
    terminate()
    // A child that ignores SIGTERM for 5 s is killed: a test must not leave processes behind.
    if wait(timeout: 5) == nil {
      kill(pid, SIGKILL)
      _ = wait(timeout: 5)
    }
  }

  /// The exit status, or the number of the signal that ended it; nil while it runs.
  var status: Int32? {
    if exitStatus == nil {
      var raw: Int32 = 0
      if waitpid(pid, &raw, WNOHANG) == pid {
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        exitStatus = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
      }
    }
    return exitStatus
  }

  var isRunning: Bool { status == nil }

  /// The process id (the name Foundation's `Process` uses).
  var processIdentifier: pid_t { pid }

  /// Sends SIGTERM if it still runs.
  func terminate() {
    if isRunning { kill(pid, SIGTERM) }
  }

  /// Waits up to `timeout` seconds for the child to end; its status, or nil if it still runs.
  func wait(timeout: Double) -> Int32? {
    let deadline = Date().addingTimeInterval(timeout)
    while isRunning && Date() < deadline { usleep(1000) }
    return status
  }

  // The two glibc file actions (2.29 and 2.34) that Swift's Glibc module does not export (they need
  // _GNU_SOURCE), looked up once.
  private typealias AddChdir =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>)
    -> Int32
  private typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
  private static let addChdir = unsafeBitCast(
    dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addchdir_np")!, to: AddChdir.self)
  private static let addClosefrom = unsafeBitCast(
    dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np")!, to: AddClosefrom.self)
}
