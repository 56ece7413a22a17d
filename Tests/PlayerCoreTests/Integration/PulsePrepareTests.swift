import AudioTestSupport
import Foundation
import Futures
import PlayerCore
import Testing

/// `PulseOutput.prepare`, the stream `splay play` makes for its first file while it parses its command line,
/// against the real server: which `open` takes it, which replaces it, and what is heard either way.
@Suite(.serialized, .enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
final class PulsePrepareTests {
  private func value<Value: Sendable>(_ future: Future<Value, PlayerError>) async throws -> Value {
    switch await future.settled {
    case .success(let value): return value
    case .failure(let error): throw error
    case .cancelled: throw PlayerError.cancelled
    }
  }

  /// Copies of the fixtures under names of this test's own, so that the server's streams of this test can be
  /// told from those other suites of this process may still have open (a stream names its file).
  private let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
    "splay-prepare-\(UUID().uuidString)"
  ).path
  private let ladder: String
  private let sweep: String

  init() throws {
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    ladder = scratch + "/ladder.flac"
    sweep = scratch + "/sweep.flac"
    try FileManager.default.copyItem(atPath: Fixtures.stereoFLAC, toPath: ladder)
    try FileManager.default.copyItem(atPath: Fixtures.sweepFLAC, toPath: sweep)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: scratch)
  }

  /// The server's streams of this test's files (sink inputs whose `media.filename` is one of them).
  private func ownStreams() throws -> Int {
    let listing = try PulseEnvironment.run("/usr/bin/pactl", ["list", "sink-inputs"]).stdout
    return [ladder, sweep].reduce(0) { count, path in
      count + listing.components(separatedBy: "media.filename = \"\(path)\"").count - 1
    }
  }

  private func waitForOwnStreams(_ count: Int) async throws {
    var polls = 0
    while try ownStreams() != count, polls < 300 {
      polls += 1
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(try ownStreams() == count, "the server shows \(count) stream(s) of this test's files")
  }

  /// Plays what is open for `seconds` and returns the quarter-second ladder steps heard from the first sound.
  private func stepsHeard(_ output: PulseOutput, seconds: Double, steps: Int) async throws -> [Int] {
    let recorder = try MonitorRecorder()
    _ = try await value(output.start())
    try await Task.sleep(for: .seconds(seconds))
    _ = try await value(output.stop())
    let recording = recorder.stop()
    let start = try #require(recording.firstAudibleFrame(threshold: 0.05), "no audio reached the sink")
    return SignalAnalysis.ladderSteps(recording.left, from: start, rate: recording.rate, count: steps)
  }

  @Test(arguments: [false, true])
  func theOpenOfThePreparedDecoderTakesItsStreamAndPlaysTheFileFromItsStart(afterItExists: Bool) async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let decoder = try SndfileDecoderFactory().open(ladder)
      output.prepare(decoder)
      // Taken once the server made it, or while it is still being made.
      if afterItExists { try await waitForOwnStreams(1) }
      let opened = try await value(output.open(decoder, at: 0, volume: 100))
      #expect(opened.stream == 1, "the prepared stream, not a second one")
      #expect(opened.position == 0 && !opened.running)
      try await waitForOwnStreams(1)
      #expect(try await stepsHeard(output, seconds: 1.3, steps: 4) == [0, 1, 2, 3])
      _ = try await value(output.close())
    }
  }

  @Test func anOpenOfAnotherDecoderReplacesThePreparedStream() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let files = SndfileDecoderFactory()
      output.prepare(try files.open(sweep))
      try await waitForOwnStreams(1)
      let opened = try await value(output.open(try files.open(ladder), at: 0, volume: 100))
      #expect(opened.stream == 2, "a stream of its own")
      try await waitForOwnStreams(1)
      #expect(try await stepsHeard(output, seconds: 1.3, steps: 4) == [0, 1, 2, 3], "the opened file, not the sweep")
      _ = try await value(output.close())
    }
  }

  @Test func theSameDecoderOpenedElsewhereThanItsStartIsNotTakenEither() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let decoder = try SndfileDecoderFactory().open(ladder)
      output.prepare(decoder)
      try await waitForOwnStreams(1)
      // A quarter-second step in: the prepared stream holds the file from 0 s and is not it.
      let opened = try await value(output.open(decoder, at: 0.5, volume: 100))
      #expect(opened.stream == 2)
      #expect(try await stepsHeard(output, seconds: 1.0, steps: 3) == [2, 3, 4])
      _ = try await value(output.close())
    }
  }

  @Test func anOpenOfThePreparedDecoderAtAnotherVolumeIsNotTaken() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let decoder = try SndfileDecoderFactory().open(ladder)
      output.prepare(decoder)
      try await waitForOwnStreams(1)
      let opened = try await value(output.open(decoder, at: 0, volume: 50))
      #expect(opened.stream == 2, "a stream of its own, created at that volume")
      try await waitForOwnStreams(1)
      _ = try await value(output.close())
    }
  }

  @Test func preparingAfterTheFirstOpenChangesNothing() async throws {
    try await ExclusiveSink.run {
      let output = PulseOutput()
      let files = SndfileDecoderFactory()
      let opened = try await value(output.open(try files.open(ladder), at: 0, volume: 100))
      output.prepare(try files.open(sweep))
      try await waitForOwnStreams(1)
      #expect(opened.stream == 1)
      #expect(try await stepsHeard(output, seconds: 1.3, steps: 4) == [0, 1, 2, 3], "the opened file still")
      _ = try await value(output.close())
    }
  }
}
