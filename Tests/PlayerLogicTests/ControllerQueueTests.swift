import Dispatch
import Futures
import Glibc
import PlayerCore
import PlayerScripts
import PlayerTestSupport
import Testing

/// Work that may block stays on the controller's own queue, whatever context takes up the output's answers
/// (`splay serve` passes its event loop): opening the files skipped while moving on probes them and may load
/// FFmpeg, which must not stall the socket's other clients.
@Suite struct ControllerQueueTests {
  /// The label of the queue a call runs on: libdispatch's `dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL)`,
  /// which the Dispatch overlay does not export.
  private static var currentQueueLabel: String {
    typealias GetLabel = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "dispatch_queue_get_label") else { return "?" }
    return unsafeBitCast(symbol, to: GetLabel.self)(nil).map { String(cString: $0) } ?? "?"
  }

  /// Opens ``FakeDecoder``s like ``FakeDecoderFactory`` and records the queue each open ran on.
  private struct RecordingFactory: AudioDecoderFactory {
    let opened: Locked<[(path: String, queue: String)]>

    func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
      opened.withLock { $0.append((path, ControllerQueueTests.currentQueueLabel)) }
      return try FakeDecoderFactory().open(path)
    }
  }

  @Test func tracksSkippedWhileMovingOnAreOpenedOnTheControllersQueue() async {
    let clock = VirtualClock()
    let opened = Locked<[(path: String, queue: String)]>([])
    let answers = DispatchQueue(label: "test.answers")
    let controller = PlayerController(
      output: SimulatedOutput(clock: clock), decoders: RecordingFactory(opened: opened),
      configuration: ControllerConfiguration(clock: clock, answers: .queue(answers)))
    let timeline = VirtualTimeline(clock: clock)
    _ = await timeline.settle(
      controller.load(["a.flac", "missing1.flac", "missing2.flac", "b.flac"]), controller: controller)
    _ = await timeline.settle(controller.play(), controller: controller)
    await timeline.pass(seconds: 4, controller: controller)
    #expect(controller.state.index == 3, "the two missing files were skipped")
    #expect(controller.state.status == .playing)
    let moving = opened.withLock { $0 }.filter { $0.path != "a.flac" }
    #expect(moving.map(\.path).contains("missing2.flac"), "\(moving)")
    for open in moving {
      #expect(open.queue == "splay.controller", "\(open.path) was opened on \(open.queue)")
    }
    _ = await timeline.settle(controller.shutdown(), controller: controller)
  }
}
