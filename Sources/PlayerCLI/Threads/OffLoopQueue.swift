import Dispatch

/// Where splay's few blocking jobs (walking a folder a client asked for) run: a serial queue each, instead of
/// `DispatchQueue.global()`, whose pool starts the once-a-second monitor that ``SerialTaskExecutor`` explains.
enum OffLoopQueue {
  /// Runs `work` on a serial queue of its own, so that two jobs do not wait for each other.
  static func run(_ label: String, _ work: @escaping @Sendable () -> Void) {
    DispatchQueue(label: label, qos: .userInitiated).async(execute: work)
  }
}
