import Glibc

/// One run of a hook's command: `/bin/sh -c COMMAND` with `input` on its standard input, `environment` added to
/// splay's own, its output discarded (it would tear the live view or the JSON lines), and its exit status.
enum HookProcess {
  /// Runs the command to its end (on the caller's thread, which waits); the exit status, or why it did not run.
  static func run(_ command: String, input: [UInt8], environment: [String: String]) -> Result<Int32, HookFailure> {
    // A socket pair, not a pipe: a hook that exits without reading its input must not end splay with SIGPIPE
    // (send with MSG_NOSIGNAL cannot raise it; a pipe's write can).
    var ends: [Int32] = [-1, -1]
    // Close-on-exec from the start: another hook spawned meanwhile must not inherit either end.
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { return .failure(.spawn(errno)) }
    defer { close(ends[0]) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    // The hook starts as a shell would start it: splay's threads block signals and ignore SIGINT, SIGTERM,
    // SIGHUP and SIGPIPE, and a child inherits both; a hook left running must still die of them.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM, SIGCHLD] { sigaddset(&defaults, number) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    // splay's own SPLAY_* variables are not the state's: a state without a track sets fewer.
    let inherited = currentEnvironment().filter { !$0.key.hasPrefix("SPLAY_") }
    let merged = inherited.merging(environment) { $1 }
    let argv = [String](["/bin/sh", "-c", command]).map { strdup($0) } + [nil]
    let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
    close(ends[1])
    guard spawned == 0 else { return .failure(.spawn(spawned)) }
    var offset = 0
    while offset < input.count {
      let sent = input.withUnsafeBytes {
        send(ends[0], $0.baseAddress! + offset, input.count - offset, Int32(MSG_NOSIGNAL))
      }
      if sent < 0, errno == EINTR { continue }
      // The hook closed its input without reading it all: that is its business.
      guard sent > 0 else { break }
      offset += sent
    }
    shutdown(ends[0], Int32(SHUT_WR))
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { return .failure(.spawn(errno)) }
    }
    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
    let signal = status & 0x7F
    return signal == 0 ? .success((status >> 8) & 0xFF) : .failure(.signal(signal))
  }

  private static func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
      let text = String(cString: pointer)
      if let equals = text.firstIndex(of: "=") {
        result[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      entry += 1
    }
    return result
  }
}

/// Why a hook's run failed before giving an exit status.
enum HookFailure: Error, Equatable {
  /// The shell could not be started (errno).
  case spawn(Int32)
  /// The command was killed by this signal.
  case signal(Int32)

  var description: String {
    switch self {
    case .spawn(let code): "could not run /bin/sh: \(String(cString: strerror(code)))"
    case .signal(let number): "killed by signal \(number)"
    }
  }
}
