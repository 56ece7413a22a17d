#if canImport(Glibc)
  import Glibc

  /// Tells a stack overflow apart from other crashes: a SIGSEGV whose faulting address lies in or just below the
  /// main thread's stack is an overflow. The driver then reports "crashes (stack overflow)" from evidence, not
  /// from the exit status alone.
  enum StackOverflowReporter {
    /// The main thread's stack, recorded before the chain runs, for the signal handler to compare with.
    nonisolated(unsafe) static var stackLow: UInt = 0
    nonisolated(unsafe) static var stackHigh: UInt = 0

    /// Installs the handler on an alternate stack (the overflowed one has no room left to run it).
    static func install() {
      // The main thread's stack grows down from just above this frame to at most RLIMIT_STACK below it
      // (Glibc does not export pthread_getattr_np to Swift).
      var limit = rlimit()
      guard getrlimit(Int32(RLIMIT_STACK.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return }
      var marker = 0
      stackHigh = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
      stackLow = stackHigh - UInt(limit.rlim_cur)

      let alternateSize = 1 << 16
      var alternate = stack_t(ss_sp: malloc(alternateSize), ss_flags: 0, ss_size: alternateSize)
      sigaltstack(&alternate, nil)

      var action = sigaction()
      action.sa_flags = SA_SIGINFO | SA_ONSTACK
      action.__sigaction_handler.sa_sigaction = { _, info, _ in
        let address = UInt(bitPattern: info?.pointee._sifields._sigfault.si_addr)
        // The kernel faults a little below the lowest address the stack may grow to: allow one MiB of slack.
        let slack: UInt = 1 << 20
        let onStack = address < StackOverflowReporter.stackHigh && address + slack >= StackOverflowReporter.stackLow
        let message: StaticString = onStack ? "stack overflow\n" : "SIGSEGV outside the main thread's stack\n"
        _ = write(STDERR_FILENO, message.utf8Start, message.utf8CodeUnitCount)
        _exit(onStack ? 86 : 87)
      }
      sigaction(SIGSEGV, &action, nil)
    }
  }
#else
  /// Elsewhere a crash is reported by its exit status only.
  enum StackOverflowReporter {
    static func install() {}
  }
#endif
