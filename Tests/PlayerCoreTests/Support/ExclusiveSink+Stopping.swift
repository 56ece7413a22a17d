import AudioTestSupport
import PlayerCore

extension ExclusiveSink {
  /// Runs `body` while no other test plays to the sink, and stops `controller` before the sink is let go,
  /// however `body` ends: a suite's stored controller outlives its tests, and audio it left playing would be
  /// heard in the next test's recording.
  static func run<T>(stopping controller: PlayerController, _ body: () async throws -> T) async rethrows -> T {
    try await run {
      do {
        let value = try await body()
        _ = await controller.stop().settled
        return value
      } catch {
        _ = await controller.stop().settled
        throw error
      }
    }
  }
}
