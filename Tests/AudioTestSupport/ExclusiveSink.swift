/// One test at a time plays to the shared null sink: a recording must hear only its own test's audio, while
/// Swift Testing runs suites in parallel. Tests that keep the CPU busy for seconds take it too, so that a
/// player under test is not starved into an underrun by its neighbours.
public actor ExclusiveSink {
  private var busy = false
  private var waiters: [CheckedContinuation<Void, Never>] = []

  private static let shared = ExclusiveSink()

  /// Runs `body` while no other test plays to the sink.
  public static func run<T>(_ body: () async throws -> T) async rethrows -> T {
    await shared.acquire()
    do {
      let value = try await body()
      await shared.release()
      return value
    } catch {
      await shared.release()
      throw error
    }
  }

  private func acquire() async {
    if !busy {
      busy = true
      return
    }
    await withCheckedContinuation { waiters.append($0) }
  }

  private func release() {
    if waiters.isEmpty {
      busy = false
    } else {
      waiters.removeFirst().resume()
    }
  }
}
