import Foundation
import Futures

/// A child process started with `posix_spawn`: the one way the tests start programs.
///
/// Foundation's `Process` lets a child inherit every open descriptor of the test process, and `make test` runs
/// many tests at once: a `splay serve` started by one test kept another test's output pipe open, whose reader
/// then waited for an end of file that could not come, and `make test` hung. A `ChildProcess` gets
/// /dev/null or the files it is given as stdin, stdout and stderr (or a pipe for stdout), and nothing else;
/// the test reaps it itself, and a daemon it leaves behind holds none of the test's descriptors.
public final class ChildProcess: @unchecked Sendable {
  /// The process id.
  public let pid: pid_t
  /// The reading end of the child's stdout, when it was started `pipingStdout`.
  public let stdoutPipe: FileHandle?
  private let exitStatus = Lock<Int32?>(nil)

  /// Starts `arguments[0]` (a path, or a name looked up on PATH) with `arguments`, in `directory` (by default the test's own),
  /// with the standard streams read from and written to the given files (created 0600 when missing,
  /// truncated); `pipingStdout` sends stdout to ``stdoutPipe`` instead.
  public init(
    _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
    directory: String? = nil, stdin: String = "/dev/null", stdout: String = "/dev/null",
    stderr: String = "/dev/null", pipingStdout: Bool = false
  ) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var pipe: [Int32] = [-1, -1]
    if pipingStdout {
      guard Glibc.pipe(&pipe) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL) }
      // Not inherited by other children started meanwhile (pipe2 is not in Swift's Glibc module).
      for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    }
    posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
    if pipingStdout {
      posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    }
    posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    if let directory { _ = directory.withCString { Self.addChdir(&actions, $0) } }
    _ = Self.addClosefrom(&actions, 3)
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    // spawnp: a name without a slash is looked up on PATH, as a shell would (`tmux`).
    let result = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
    if pipingStdout { close(pipe[1]) }
    guard result == 0 else {
      if pipingStdout { close(pipe[0]) }
      throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL)
    }
    self.pid = pid
    stdoutPipe = pipingStdout ? FileHandle(fileDescriptor: pipe[0], closeOnDealloc: true) : nil
  }

  /// Runs `arguments` to its end (killed after `timeout` seconds) and returns its exit status and output.
  public static func run(
    _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
    stdout: String? = nil, timeout: Double = 120
  ) throws -> (status: Int32, stdout: String, stderr: String) {
    let base = FileManager.default.temporaryDirectory.path + "/splay-child-\(getpid())-\(UInt64.random(in: 0 ... .max))"
    defer {
      unlink(base + ".out")
      unlink(base + ".err")
    }
    let child = try ChildProcess(
      arguments, environment: environment, stdout: stdout ?? base + ".out", stderr: base + ".err")
    if child.wait(timeout: timeout) == nil {
      kill(child.pid, SIGKILL)
      _ = child.wait(timeout: 5)
    }
    func text(_ path: String) -> String {
      String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }
    return (child.status ?? -1, stdout == nil ? text(base + ".out") : "", text(base + ".err"))
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
  public var status: Int32? {
    exitStatus.withLock { exitStatus in
      if exitStatus == nil {
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid {
          // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
          exitStatus = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
        }
      }
      return exitStatus
    }
  }

  /// Whether it still runs.
  public var isRunning: Bool { status == nil }

  /// The process id (the name Foundation's `Process` uses).
  public var processIdentifier: pid_t { pid }

  /// Sends SIGTERM if it still runs.
  public func terminate() {
    if isRunning { kill(pid, SIGTERM) }
  }

  /// Waits up to `timeout` seconds for the child to end; its status, or nil if it still runs.
  public func wait(timeout: Double) -> Int32? {
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
