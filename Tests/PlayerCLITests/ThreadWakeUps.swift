import Foundation

/// The context switches of every thread of a process, from /proc/PID/task/TID/status: each voluntary one is a
/// time the thread slept and was woken, which keeps a laptop's CPU out of deep idle.
struct ThreadWakeUps {
  /// Thread id → (the thread's name, its voluntary and involuntary context switches so far).
  let threads: [String: (name: String, switches: Int)]

  /// A snapshot of process `pid`'s threads; a thread that ends while it is read is left out.
  init(of pid: pid_t) {
    var threads: [String: (name: String, switches: Int)] = [:]
    let task = "/proc/\(pid)/task"
    for tid in (try? FileManager.default.contentsOfDirectory(atPath: task)) ?? [] {
      guard let name = try? String(contentsOfFile: "\(task)/\(tid)/comm", encoding: .utf8),
        let status = try? String(contentsOfFile: "\(task)/\(tid)/status", encoding: .utf8)
      else { continue }
      let switches = status.split(separator: "\n").filter { $0.contains("ctxt_switches:") }
        .compactMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
      threads[tid] = (name.trimmingCharacters(in: .whitespacesAndNewlines), switches)
    }
    self.threads = threads
  }

  /// The wake-ups since `earlier` per "name (tid)", of the threads alive now and not named in `excluding`; a
  /// thread that started since counts from zero. Threads that ended since are left out: their last wake-up was
  /// the one that ended them (an idle Dispatch worker retiring).
  func since(_ earlier: ThreadWakeUps, excluding: Set<String> = []) -> [String: Int] {
    var woken: [String: Int] = [:]
    for (tid, thread) in threads where !excluding.contains(thread.name) {
      let count = thread.switches - (earlier.threads[tid]?.switches ?? 0)
      if count > 0 { woken["\(thread.name) (\(tid))"] = count }
    }
    return woken
  }
}
