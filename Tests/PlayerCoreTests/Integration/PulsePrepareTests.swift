import AudioTestSupport
import CPulseAudio
import Foundation
import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import PlayerTestSupport
import Testing

/// What `splay play` starts before it has parsed its command line, against the real server: the connection it
/// begins before `main` and hands to `PulseOutput(configuration:adopting:)`; `PulseOutput.prepare`, the stream
/// it makes for its first file, which `open` takes it, which replaces it, and what is heard either way; and how
/// far a corked stream decodes ahead.
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

  /// Runs `body` alone on the sink. On PipeWire, WirePlumber gives a new stream of this program the volume
  /// that its last stream had, which another suite may have left at 30 % or 0: these tests' streams take the
  /// server's volume, so a stream at 100 % is played first for WirePlumber to remember.
  private func exclusively<T>(_ body: () async throws -> T) async throws -> T {
    try await ExclusiveSink.run {
      if PulseEnvironment.flavour == "pipewire" {
        let output = PulseOutput()
        _ = try await value(output.open(try SndfileDecoderFactory().open(Fixtures.shortFLAC), at: 0, volume: 100))
        try await Task.sleep(for: .milliseconds(300))
        _ = try await value(output.close())
      }
      return try await body()
    }
  }

  /// The server's streams of this test's files (sink inputs whose `media.filename` is one of them).
  private func ownStreams(of files: [String]? = nil) throws -> Int {
    let listing = try PulseEnvironment.run("/usr/bin/pactl", ["list", "sink-inputs"]).stdout
    return (files ?? [ladder, sweep]).reduce(0) { count, path in
      count + listing.components(separatedBy: "media.filename = \"\(path)\"").count - 1
    }
  }

  private func waitForOwnStreams(_ count: Int, of files: [String]? = nil) async throws {
    // A reading of the server: no event of this process announces another stream.
    _ = try await waitFor(within: 3, every: .milliseconds(10)) { try ownStreams(of: files) == count }
    let shown = try ownStreams(of: files)
    #expect(shown == count, "the server shows \(shown) stream(s) of this test's files, not \(count)")
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
    try await exclusively {
      let output = PulseOutput()
      let decoder = try SndfileDecoderFactory().open(ladder)
      output.prepare(decoder)
      // Taken once the server made it, or while it is still being made.
      if afterItExists { try await waitForOwnStreams(1) }
      let opened = try await value(output.open(decoder, at: 0, volume: nil))
      #expect(opened.streamNumber == 1, "the prepared stream, not a second one")
      #expect(opened.position == 0 && !opened.running)
      try await waitForOwnStreams(1)
      #expect(try await stepsHeard(output, seconds: 1.3, steps: 4) == [0, 1, 2, 3])
      _ = try await value(output.close())
    }
  }

  @Test func anOpenOfAnotherDecoderReplacesThePreparedStream() async throws {
    try await exclusively {
      let output = PulseOutput()
      let files = SndfileDecoderFactory()
      output.prepare(try files.open(sweep))
      try await waitForOwnStreams(1)
      let opened = try await value(output.open(try files.open(ladder), at: 0, volume: nil))
      #expect(opened.streamNumber == 2, "a stream of its own")
      try await waitForOwnStreams(1)
      #expect(try await stepsHeard(output, seconds: 1.3, steps: 4) == [0, 1, 2, 3], "the opened file, not the sweep")
      _ = try await value(output.close())
    }
  }

  @Test func theSameDecoderOpenedElsewhereThanItsStartIsNotTakenEither() async throws {
    try await exclusively {
      let output = PulseOutput()
      let decoder = try SndfileDecoderFactory().open(ladder)
      output.prepare(decoder)
      try await waitForOwnStreams(1)
      // A quarter-second step in: the prepared stream holds the file from 0 s and is not it.
      let opened = try await value(output.open(decoder, at: 0.5, volume: nil))
      #expect(opened.streamNumber == 2)
      #expect(try await stepsHeard(output, seconds: 1.0, steps: 3) == [2, 3, 4])
      _ = try await value(output.close())
    }
  }

  @Test func anOpenOfThePreparedDecoderAtAnotherVolumeIsNotTaken() async throws {
    try await exclusively {
      let output = PulseOutput()
      let decoder = try SndfileDecoderFactory().open(ladder)
      output.prepare(decoder)
      try await waitForOwnStreams(1)
      let opened = try await value(output.open(decoder, at: 0, volume: 50))
      #expect(opened.streamNumber == 2, "a stream of its own, created at that volume")
      try await waitForOwnStreams(1)
      _ = try await value(output.close())
    }
  }

  /// An `open` that replaces a stream the server has not yet answered for: that stream must still leave the
  /// server (libpulse cannot disconnect a stream before the answer, so it is deleted once the answer comes).
  @Test func aStreamReplacedBeforeTheServerMadeItLeavesTheServer() async throws {
    try await exclusively {
      let output = PulseOutput()
      let files = SndfileDecoderFactory()
      // Both wait for the connection and then run in order: the second replaces the first, as a rule before the
      // server made it. Under TSan the server may make it first; that open then confirms its own stream.
      let (first, second) = (try files.open(sweep), try files.open(ladder))
      let replaced = output.open(first, at: 0, volume: nil)
      let opened = try await value(output.open(second, at: 0, volume: nil))
      let given = await replaced.settled
      #expect(given.value == nil || given.value?.streamNumber == 1, "given up, or its own stream: \(given)")
      #expect(opened.streamNumber == 2)
      try await waitForOwnStreams(0, of: [sweep])
      try await waitForOwnStreams(1, of: [ladder])
      _ = try await value(output.close())
      try await waitForOwnStreams(0)
    }
  }

  @Test func preparingAfterTheFirstOpenChangesNothing() async throws {
    try await exclusively {
      let output = PulseOutput()
      let files = SndfileDecoderFactory()
      let opened = try await value(output.open(try files.open(ladder), at: 0, volume: nil))
      output.prepare(try files.open(sweep))
      try await waitForOwnStreams(1)
      #expect(opened.streamNumber == 1)
      #expect(try await stepsHeard(output, seconds: 1.3, steps: 4) == [0, 1, 2, 3], "the opened file still")
      _ = try await value(output.close())
    }
  }

  // MARK: - A stream prepared to play

  @Test func aStreamPreparedToPlayIsHeardFromItsStartBeforeAnyOpenWhichThenConfirmsItRunning() async throws {
    try await exclusively {
      let recorder = try MonitorRecorder()
      let output = PulseOutput()
      let decoder = try SndfileDecoderFactory().open(ladder)
      output.prepare(decoder, playingWhen: .resolved(()))
      try await Task.sleep(for: .milliseconds(700))
      let opened = try await value(output.open(decoder, at: 0, volume: nil))
      #expect(opened.streamNumber == 1, "the prepared stream, not a second one")
      #expect(opened.running, "the server acknowledged its uncork before the open")
      #expect(opened.position > 0.3 && opened.position < 1.5, "confirmed at \(opened.position) s")
      try await Task.sleep(for: .milliseconds(600))
      _ = try await value(output.stop())
      let recording = recorder.stop()
      let start = try #require(recording.firstAudibleFrame(threshold: 0.05), "no audio reached the sink")
      // Played from its first frame on, before and after the open, with nothing skipped or repeated.
      #expect(SignalAnalysis.ladderSteps(recording.left, from: start, rate: recording.rate, count: 4) == [0, 1, 2, 3])
      _ = try await value(output.close())
    }
  }

  @Test func aShortTrackPreparedToPlayEndsOnlyOnceAnOpenTookItsStream() async throws {
    try await exclusively {
      let output = PulseOutput()
      // The server also reports the underflow that follows the last frame; only the end matters here.
      let events = OutputEventLog(listeningTo: output)
      let decoder = FakeDecoder(path: "short-prepared.flac", seconds: 0.3)
      output.prepare(decoder, playingWhen: .resolved(()))
      // Long past its end: nobody has opened the stream, so nobody is told, and nothing is lost by waiting.
      try await Task.sleep(for: .milliseconds(900))
      #expect(!events.contains { $0.isTrackFinished }, "the end was reported before any open")
      let opened = try await value(output.open(decoder, at: 0, volume: nil))
      #expect(opened.running && opened.streamNumber == 1)
      let end = try #require(
        await events.trackFinished(within: 2), "the end of the track, once the open took the stream")
      #expect(end.streamNumber == 1 && abs(end.position - 0.3) < 0.001)
      _ = try await value(output.close())
    }
  }

  /// A stream prepared to play waits for its `playingWhen` future (in `splay play`, the file's length check)
  /// however long its audio has been in; when that future fails it stays corked, and the open says so.
  @Test(arguments: [true, false])
  func aStreamPreparedToPlayStartsOnlyOnceItsFutureSucceeded(succeeds: Bool) async throws {
    try await exclusively {
      let recorder = try MonitorRecorder()
      let output = PulseOutput()
      let decoder = try SndfileDecoderFactory().open(ladder)
      let (cleared, clear) = Future<Void, PlayerError>.pending()
      let prepared = output.prepare(decoder, playingWhen: cleared)
      try await waitForOwnStreams(1)
      try await Task.sleep(for: .milliseconds(400))
      let early = recorder.snapshot()
      #expect(early.firstAudibleFrame(threshold: 0.05) == nil, "audio before its future settled")
      #expect(!prepared.isSettled)
      if succeeds { clear.resolve() } else { clear.reject(.cancelled) }
      _ = try await value(prepared)
      let opened = try await value(output.open(decoder, at: 0, volume: nil))
      #expect(opened.streamNumber == 1 && opened.running == succeeds)
      if succeeds {
        try await Task.sleep(for: .milliseconds(1100))
        _ = try await value(output.stop())
        let recording = recorder.stop()
        let start = try #require(recording.firstAudibleFrame(threshold: 0.05), "no audio reached the sink")
        #expect(
          SignalAnalysis.ladderSteps(recording.left, from: start, rate: recording.rate, count: 4) == [0, 1, 2, 3])
      } else {
        #expect(recorder.stop().firstAudibleFrame(threshold: 0.05) == nil, "a refused start played")
        #expect(try await stepsHeard(output, seconds: 1.3, steps: 4) == [0, 1, 2, 3], "played by the open's start")
      }
      _ = try await value(output.close())
    }
  }

  // MARK: - A connection begun before the output

  /// Begins a connection as `splay play`'s constructor does (CEarlyConnect): a started threaded mainloop and
  /// a context it called `pa_context_connect` for, no callback set. `name` is the client's application name,
  /// so that the server's clients of this test can be counted.
  private func beginConnection(server: String?, name: String) throws -> (OpaquePointer, OpaquePointer) {
    let mainloop = try #require(pa_threaded_mainloop_new())
    #expect(pa_threaded_mainloop_start(mainloop) == 0)
    pa_threaded_mainloop_lock(mainloop)
    defer { pa_threaded_mainloop_unlock(mainloop) }
    let properties = pa_proplist_new()
    pa_proplist_sets(properties, PA_PROP_APPLICATION_NAME, name)
    let context = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(mainloop), name, properties)
    pa_proplist_free(properties)
    let made = try #require(context)
    _ = pa_context_connect(made, server, PA_CONTEXT_NOAUTOSPAWN, nil)
    return (mainloop, made)
  }

  /// Waits (up to 3 s) until the context's state is one of `states`.
  private func waitForState(_ connection: (OpaquePointer, OpaquePointer), in states: [pa_context_state_t]) async throws
  {
    let reached = await waitFor(within: 3, every: .milliseconds(10)) {
      pa_threaded_mainloop_lock(connection.0)
      defer { pa_threaded_mainloop_unlock(connection.0) }
      return states.contains(pa_context_get_state(connection.1))
    }
    if !reached { Issue.record("the context did not reach \(states)") }
  }

  /// The server's clients whose application name is `name`.
  private func clients(named name: String) throws -> Int {
    let listing = try PulseEnvironment.run("/usr/bin/pactl", ["list", "clients"]).stdout
    return listing.components(separatedBy: "application.name = \"\(name)\"").count - 1
  }

  private func waitForClients(named name: String, _ count: Int) async throws {
    _ = try await waitFor(within: 3, every: .milliseconds(10)) { try clients(named: name) == count }
    #expect(try clients(named: name) == count, "the server shows \(count) client(s) named \(name)")
  }

  @Test(arguments: [false, true])
  func anAdoptedConnectionIsTheOutputsOnlyOneAndGoesWithIt(onceReady: Bool) async throws {
    try await exclusively {
      let name = "splay-adopt-\(UUID().uuidString)"
      let connection = try beginConnection(server: PulseEnvironment.server, name: name)
      // Taken over while the handshake is under way (as `splay play` usually does), or once it is done.
      if onceReady { try await waitForState(connection, in: [PA_CONTEXT_READY]) }
      var output: PulseOutput? = PulseOutput(
        configuration: PulseOutput.Configuration(server: PulseEnvironment.server),
        adopting: PulseOutput.Connection(mainloop: connection.0, context: connection.1))
      let decoder = try SndfileDecoderFactory().open(ladder)
      let opened = try await value(try #require(output).open(decoder, at: 0, volume: nil))
      #expect(opened.streamNumber == 1)
      try await waitForClients(named: name, 1)
      #expect(try await stepsHeard(try #require(output), seconds: 1.3, steps: 4) == [0, 1, 2, 3])
      _ = try await value(try #require(output).close())
      // The output owns the connection: it disconnects and frees the mainloop when it goes.
      output = nil
      try await waitForClients(named: name, 0)
    }
  }

  /// The parts of an output may outlive it while a fill or a continuation they queued still runs: what was in
  /// flight when the last reference went settles, nothing touches a freed mainloop, and the connection goes.
  @Test func anOutputLetGoWithCommandsInFlightSettlesThemAndLeavesTheServer() async throws {
    try await exclusively {
      let name = "splay-let-go-\(UUID().uuidString)"
      let connection = try beginConnection(server: PulseEnvironment.server, name: name)
      var output: PulseOutput? = PulseOutput(
        configuration: PulseOutput.Configuration(server: PulseEnvironment.server),
        adopting: PulseOutput.Connection(mainloop: connection.0, context: connection.1))
      _ = try await value(try #require(output).open(try SndfileDecoderFactory().open(ladder), at: 0, volume: nil))
      let never = PlayerError.outputFailed(operation: "test", detail: "never settled")
      let inFlight = try [
        #require(output).start(), #require(output).seek(to: 1), #require(output).status(),
      ].map { $0.timeout(.seconds(3), error: never) }
      output = nil
      for future in inFlight {
        if case .failure(let error) = await future.settled { #expect(error != never, "settled once the output went") }
      }
      try await waitForClients(named: name, 0)
    }
  }

  @Test func anAdoptedConnectionThatFailedIsReportedByTheFirstOpenNamingTheServer() async throws {
    let address = "unix:/nonexistent/splay-adopt-socket"
    let connection = try beginConnection(server: address, name: "splay-adopt-failed")
    try await waitForState(connection, in: [PA_CONTEXT_FAILED])
    let output = PulseOutput(
      configuration: PulseOutput.Configuration(server: address),
      adopting: PulseOutput.Connection(mainloop: connection.0, context: connection.1))
    let decoder = try SndfileDecoderFactory().open(ladder)
    await #expect {
      _ = try await value(output.open(decoder, at: 0, volume: nil))
    } throws: { error in
      (error as? PlayerError)?.code == "output-unavailable"
        && (error as? PlayerError)?.message.contains(address) == true
    }
  }

  // MARK: - Decoding ahead while corked

  /// A corked stream decodes what the server takes and the server's buffer and two chunks more into its ring,
  /// not the whole ring (two seconds or more): at start-up that CPU time is taken from the command-line parse and the
  /// server, which the first sound waits for. Once it plays, the ring is filled.
  @Test func aCorkedStreamDoesNotFillItsRingUntilItPlays() async throws {
    try await exclusively {
      let output = PulseOutput()
      let decoder = FakeDecoder(path: "long-corked.flac", seconds: 30)
      _ = try await value(output.open(decoder, at: 0, volume: nil))
      try await Task.sleep(for: .milliseconds(300))
      // The smallest ring alone is 88,200 frames (2 s at 44.1 kHz).
      let corked = decoder.framesRead
      #expect(corked < 88_200, "decoded \(corked) frames while corked")
      _ = try await value(output.start())
      // The ring fills: more than a whole ring decoded, far more than a moment of playing takes.
      _ = await waitFor(within: 3) { decoder.framesRead >= 88_200 && decoder.framesRead - corked > 44_100 }
      let playing = decoder.framesRead
      #expect(playing >= 88_200 && playing - corked > 44_100, "decoded \(corked), then \(playing) frames")
      _ = try await value(output.stop())
      _ = try await value(output.close())
    }
  }
}
