import Dispatch
import Futures
import Glibc

/// Ends `play` and `run` on SIGINT, SIGTERM and SIGHUP with the documented exit code 128 + the signal's number
/// (130, 143, 129: what a shell reports for a process the signal ended), as an exit status that any parent reads
/// the same way, not a death by signal.
enum SignalExit {
  /// The exit code for `signal`.
  static func status(for signal: Int32) -> Int32 { 128 + signal }

  /// Handles the three signals from now on; the sources live as long as the process.
  static func install() {
    let queue = DispatchQueue(label: "splay.signal-exit")
    let sources = [SIGINT, SIGTERM, SIGHUP].map { number -> any DispatchSourceSignal in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      // Console writes are unbuffered: nothing is left to flush, and the server drops the stream with the client.
      source.setEventHandler {
        runLastWords()
        _exit(status(for: number))
      }
      source.resume()
      return source
    }
    installed = sources
  }

  /// Runs `body` before the process ends on a signal (here or in the live view's Ctrl-C): what must reach the
  /// disk, such as the session `play` keeps. It runs on the signal's queue, once.
  static func lastWords(_ body: @escaping @Sendable () -> Void) {
    words.withLock { $0.append(body) }
  }

  /// Runs what ``lastWords(_:)`` registered, once.
  static func runLastWords() {
    let bodies = words.withLock { words in
      defer { words = [] }
      return words
    }
    for body in bodies { body() }
  }

  private static let words = Lock<[@Sendable () -> Void]>([])

  /// Keeps the sources alive (a released source no longer handles its signal). Written once, by the command's
  /// task before anything else runs, and never read.
  private nonisolated(unsafe) static var installed: [any DispatchSourceSignal] = []
}
