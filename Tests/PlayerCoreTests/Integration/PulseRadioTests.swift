import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import PlayerTestSupport
import Testing

/// Internet radio and files on a web server through the real server, from fixtures/servers/radio.py: a live
/// stream's ICY titles are published when their audio is heard, a file served in ranges seeks, and a server
/// that fails says how.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseRadioTests {
  let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory(streamTimeout: 2))

  /// The tone changes from 440 to 880 Hz at this frame of the stream, where the server's ICY block says "Second".
  static let change = 102_400
  /// One ICY block every quarter of the way to the change: "First" comes 102,411 bytes in.
  static let live = "/live.wav?seconds=4&change=\(change)&metaint=102411"

  @Test func aLiveStreamsTitlesArePublishedWhenTheirAudioIsHeard() async throws {
    try await ExclusiveSink.run(stopping: controller) {
      let server = try RadioServer()
      let titles = Locked<[(title: String, seconds: Double)]>([])
      let observation = controller.observe { state in
        guard let title = state.track?.title, state.status == .playing else { return }
        titles.withLock { if $0.last?.title != title { $0.append((title, state.position.seconds)) } }
      }
      defer { observation.cancel() }
      let recorder = try MonitorRecorder()
      _ = try await confirmed(controller.load([server.url(Self.live)]))
      _ = try await confirmed(controller.setVolume(100))
      let playing = try await confirmed(controller.play())
      #expect(playing.track?.isLive == true)
      #expect(playing.track?.album == "splay test radio", "icy-name is the album")
      let seek = await controller.seek(to: 1).settled
      #expect(seek.error == .invalidState(command: "seek", state: "in a live stream"))
      #expect(seek.error?.message == "seek is not possible in a live stream")
      let second = await published(by: controller, within: 10) { $0.track?.title == "Second" }
      try await Task.sleep(for: .milliseconds(300))
      let recording = recorder.stop()
      #expect(second != nil, "the second title was never published")

      // Each title was published with the position its audio was heard at: within 50 ms of its first frame (the
      // first one is placed at the first packet after its block, 8 frames on).
      let heard = titles.withLock { $0 }
      #expect(heard.map(\.title) == ["First", "Second"])
      let expected = [25_600.0 / 44_100, Double(Self.change) / 44_100]
      for (title, seconds) in zip(heard, expected) {
        #expect(abs(title.seconds - seconds) < 0.05, "\(title.title) published at \(title.seconds) s, not \(seconds)")
      }
      // And at the sink that frame is where the tone changes.
      let left = recording.left
      let start = try #require(recording.firstAudibleFrame(threshold: 0.05), "the stream was heard")
      let boundary = start + Self.change
      try #require(left.count > boundary + 4096, "recorded past the change")
      func louder(_ a: Double, than b: Double, in range: Range<Int>) -> Bool {
        SignalAnalysis.power(of: a, in: left[range], rate: recording.rate)
          > 10 * SignalAnalysis.power(of: b, in: left[range], rate: recording.rate)
      }
      #expect(louder(440, than: 880, in: (boundary - 2048)..<(boundary - 64)), "440 Hz before the change")
      #expect(louder(880, than: 440, in: (boundary + 64)..<(boundary + 2048)), "880 Hz after it")

      // The stream ends where its audio does.
      let ended = await published(by: controller, within: 15) { $0.status == .ended }
      let end = try #require(ended?.position.seconds, "the stream never ended")
      #expect(abs(end - 4) < 0.05, "ended at \(end) s")
    }
  }

  @Test func aStreamThatDropsIsReconnectedAndPlaysOnAndSaysSo() async throws {
    let notices = Locked<[String]>([])
    let controller = PlayerController(
      output: PulseOutput(), decoders: StandardDecoderFactory(streamTimeout: 2),
      configuration: ControllerConfiguration(onNotice: { notice in notices.withLock { $0.append(notice) } }))
    try await ExclusiveSink.run(stopping: controller) {
      let server = try RadioServer()
      let url = server.url("/live.wav?seconds=3&drop=1.5")
      _ = try await confirmed(controller.load([url]))
      _ = try await confirmed(controller.play())
      let ended = await published(by: controller, within: 20) { state in
        if case .failed = state.status { return true }
        return state.status == .ended
      }
      #expect(ended?.status == .ended)
      // Every frame the server sent before and after the drop was played.
      let end = try #require(ended?.position.seconds)
      #expect(abs(end - 3) < 0.05, "ended at \(end) s")
      let said = notices.withLock { $0 }
      #expect(said.first?.hasPrefix(url + ": the connection dropped") == true, "\(said)")
      #expect(said.first?.hasSuffix("; reconnected") == true, "\(said)")
    }
  }

  /// A station that stops sending while the connection stays open holds its read for the whole timeout and the
  /// reconnects: `next` must not wait for that (the decoding queue serves the next track), and `stop` of a live
  /// stream opens it again from now.
  @Test func aStalledStationDoesNotHoldUpNextOrStop() async throws {
    try await ExclusiveSink.run(stopping: controller) {
      let server = try RadioServer()
      let stalled = server.url("/live.wav?seconds=60&stall=1.2")
      _ = try await confirmed(controller.load([stalled, Fixtures.shortFLAC]))
      _ = try await confirmed(controller.play())
      // The burst (1 s) plays out, and then the ring and the server's buffer: the read waits.
      try await Task.sleep(for: .milliseconds(2500))
      let started = ContinuousClock.now
      let next = try await confirmed(controller.next())
      #expect(next.track?.path == Fixtures.shortFLAC)
      #expect(next.status == .playing)
      #expect(ContinuousClock.now - started < .seconds(1), "next took \(ContinuousClock.now - started)")

      let live = server.url("/live.wav?seconds=60")
      _ = try await confirmed(controller.load([live]))
      _ = try await confirmed(controller.play())
      let stopped = try await confirmed(controller.stop())
      #expect(stopped.status == .stopped)
      #expect(stopped.position.seconds == 0)
      #expect(stopped.track?.isLive == true)
      let again = try await confirmed(controller.play())
      #expect(again.status == .playing, "a stopped station plays again from now")
    }
  }

  @Test func aFileOnAWebServerPlaysAndSeeksAsALocalOne() async throws {
    try await ExclusiveSink.run(stopping: controller) {
      let server = try RadioServer()
      _ = try await confirmed(controller.load([server.url("/files/ladder-44k-stereo.flac")]))
      _ = try await confirmed(controller.setVolume(100))
      let playing = try await confirmed(controller.play())
      #expect(playing.track?.isLive == false)
      #expect(playing.track?.duration == 3)
      _ = try await confirmed(controller.pause())
      let sought = try await confirmed(controller.seek(to: 2.125))
      #expect(abs(sought.position.seconds - 2.125) < 0.001)
      let recorder = try MonitorRecorder()
      _ = try await confirmed(controller.play())
      let ended = await published(by: controller, within: 5) { $0.status == .ended }
      let recording = recorder.stop()
      #expect(ended != nil)
      // The ladder's step 8 (1,200 Hz) sounds from 2.0 s on: the seek landed in it.
      let start = try #require(recording.firstAudibleFrame(threshold: 0.05))
      let step = SignalAnalysis.ladderStep(in: recording.left[(start + 512)..<(start + 4096)], rate: recording.rate)
      #expect(step == 8, "step \(step) after a seek to 2.125 s")
    }
  }

  @Test func aServerThatFailsSaysHowWithinTheTimeAllowed() async throws {
    let server = try RadioServer()
    let cases: [(path: String, message: String)] = [
      ("/stall", server.url("/stall") + ": no answer within 2.0 s"),
      ("/nothing", server.url("/nothing") + ": Server returned 404 Not Found"),
      (
        "/garbage",
        server.url("/garbage") + ": cannot decode: not a media file FFmpeg recognises (Invalid data found when "
          + "processing input)"
      ),
    ]
    for (path, message) in cases {
      let started = ContinuousClock.now
      do {
        _ = try StandardDecoderFactory(streamTimeout: 2).open(server.url(path))
        Issue.record("\(path) opened")
      } catch {
        #expect(error.message == message)
      }
      #expect(ContinuousClock.now - started < .seconds(5), "\(path) failed within twice the 2 s allowed")
    }
    do {
      _ = try StandardDecoderFactory().open("http://127.0.0.1:1/radio")
      Issue.record("a closed port opened")
    } catch {
      #expect(error == .streamFailed(url: "http://127.0.0.1:1/radio", detail: "connection refused"))
    }
  }
}
