import AudioTestSupport
import Foundation
import PlayerDecoding
import Testing

@Suite(.serialized) struct PlayCommandTests {
  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func playPrintsConfirmedStatesAndTheSinkHearsTheFile() async throws {
    try await expectPlayHearsTheLadder()
  }

  /// Runs `splay play --json` on the ladder fixture (under `launcher`, if any) and checks the confirmed states
  /// it prints and the twelve tone steps the sink heard, in order.
  private func expectPlayHearsTheLadder(launcher: [String] = []) async throws {
    try await ExclusiveSink.run {
      let recorder = try MonitorRecorder()
      let result = try Splay.run(["play", "--json", Splay.fixture("media/ladder-44k-stereo.flac")], launcher: launcher)
      let recording = recorder.stop()
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.playedToTheEnd, "\(result.statuses)")
      let start = try #require(recording.firstAudibleFrame(threshold: 0.05))
      // In order; a dropout on a busy machine is said, not failed (PulseOutputTests judge continuity).
      let heard = SignalAnalysis.ladderStepsAcrossSilences(recording.left, from: start, rate: recording.rate, count: 12)
      if !heard.silences.isEmpty { print("play: silences of \(heard.silences) frames in the recording") }
      #expect(heard.steps == Array(0..<12))
    }
  }

  /// `play` starts its early work (EarlyStart) on another CPU than the one that parses; allowed a single CPU,
  /// it has to start it beside the parse instead.
  /// A FLAC file with a cue sheet inside, named: its tracks play back to back, each once, the first from its
  /// start (a stream made for the whole file before the arguments were read would play its opening twice).
  @Test(
    .enabled(
      if: PulseEnvironment.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/metaflac"),
      "needs the private PulseAudio server of `make test` and metaflac"))
  func aFLACFileWithASheetInsidePlaysItsTracksOnce() async throws {
    let scratch = try ScratchDirectory("splay-embedded-cue")
    let flac = scratch.path + "/album.flac"
    try FileManager.default.copyItem(atPath: Splay.fixture("media/ladder-44k-stereo.flac"), toPath: flac)
    let sheet = scratch.path + "/album.cue"
    try Data("FILE \"album.wav\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nINDEX 01 00:01:10\n".utf8)
      .write(to: URL(fileURLWithPath: sheet))
    let imported = try ChildProcess.run(["/usr/bin/metaflac", "--import-cuesheet-from=" + sheet, flac])
    try #require(imported.status == 0, "\(imported.stderr)")
    try await ExclusiveSink.run {
      let recorder = try MonitorRecorder()
      let result = try Splay.run(["play", "--json", flac])
      let recording = recorder.stop()
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.statuses.last == "ended", "\(result.statuses)")
      #expect(result.stdout.contains("album.flac/track02"), "the second track was published")
      let start = try #require(recording.firstAudibleFrame())
      let left = recording.left
      let reference = try Self.leftChannel(of: flac)
      let dropout = recording.firstSilentFrame(after: start, lasting: 44).map { $0 < start + reference.count - 44 }
      guard PulseEnvironment.inexactRecording == nil, dropout != true else {
        // Resampled, or starved into a gap: the steps in order, which a repeated opening of a few ms may hide.
        let heard = SignalAnalysis.ladderStepsAcrossSilences(left, from: start, rate: recording.rate, count: 12)
        #expect(heard.steps == Array(0..<12), "the file once, from its start")
        return
      }
      let match = SignalAnalysis.bestOffset(of: reference, in: left, range: max(0, start - 200)..<(start + 200))
      let difference = SignalAnalysis.maximumDifference(left, offset: match.offset, reference: reference)
      #expect(difference < 1e-4, "the file once, sample for sample from its start (max difference \(difference))")
    }
  }

  /// The left channel of the audio file at `path`, decoded.
  static func leftChannel(of path: String) throws -> [Float] {
    let decoder = try StandardDecoderFactory().open(path)
    let channels = decoder.info.channels
    var left: [Float] = []
    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_096 * channels)
    defer { buffer.deallocate() }
    while case let frames = try decoder.read(into: buffer, frames: 4_096), frames > 0 {
      for frame in 0..<frames { left.append(buffer[frame * channels]) }
    }
    return left
  }

  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func onASingleCPUPlayStillHearsTheFileInOrder() async throws {
    try await expectPlayHearsTheLadder(launcher: ["/usr/bin/taskset", "-c", "0"])
  }

  /// A command line that can only mean "play these files from the start" (`play`, files, `--json`, `--loop`)
  /// starts playing before it has been parsed, and its first state is the server's confirmation of that:
  /// `playing`, with no `stopped` before it. Any other option waits for the parse. The early start can lose
  /// the race with the parse on a busy machine, so one run in five has to show it.
  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func aPlainPlayStartsPlayingBeforeItsArgumentsAreParsed() async throws {
    let file = Splay.fixture("media/short-44k-stereo.flac")
    try await ExclusiveSink.run {
      var early = 0
      for _ in 0..<5 where early == 0 {
        let result = try Splay.run(["play", "--json", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.playedToTheEnd, "\(result.statuses)")
        if result.statuses == ["playing", "ended"] { early += 1 }
      }
      #expect(early == 1, "no run started playing before its arguments were parsed")
      for options in [["--volume", "100"], ["--start", "0"], ["--shuffle"]] {
        let result = try Splay.run(["play", "--json"] + options + [file])
        #expect(result.status == 0, "\(options): \(result.stderr)")
        // `--shuffle` turns shuffle on before the load (a shuffled queue starts at a random track): idle first.
        #expect(result.statuses.first { $0 != "idle" } == "stopped", "\(options): \(result.statuses)")
      }
    }
  }

  @Test func aBrokenFileInTheQueueIsReportedAndTheOthersPlay() throws {
    let result = try Splay.run([
      "play", "--json", "--output", "simulated", Splay.fixture("media/short-44k-stereo.flac"),
      Splay.fixture("broken/random-bytes.mp3"), Splay.fixture("media/ladder-48k-mono.flac"),
    ])
    #expect(result.status == 3)
    #expect(result.stderr.contains("random-bytes.mp3: cannot decode"))
    let tracks = Set(result.jsonLines.compactMap { ($0["track"] as? [String: Any])?["path"] as? String })
    #expect(tracks.count == 2)
    #expect(result.statuses.last == "ended")
  }

  @Test func noServerExitsFourWithinTwoSecondsNamingTheAddress() throws {
    let result = try Splay.run(
      ["play", "--json", Splay.fixture("media/short-44k-stereo.flac")],
      environment: ["PULSE_SERVER": "unix:/nonexistent/pulse-socket"])
    #expect(result.status == 4)
    #expect(result.seconds < 2)
    #expect(result.stderr.contains("unix:/nonexistent/pulse-socket"))
    #expect(result.stderr.contains("start PulseAudio"))
  }

  /// `play` connects to the default server before it has parsed its options (EarlyStart); an output the
  /// options name is still the one used.
  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func theServerTheOptionsNameIsUsedEvenThoughTheDefaultOneAnswers() throws {
    let result = try Splay.run([
      "play", "--json", "--server", "unix:/nonexistent/other-socket", Splay.fixture("media/short-44k-stereo.flac"),
    ])
    #expect(result.status == 4, "\(result.stderr)")
    #expect(result.stderr.contains("unix:/nonexistent/other-socket"))
    let simulated = try Splay.run([
      "play", "--json", "--output", "simulated", Splay.fixture("media/short-44k-stereo.flac"),
    ])
    #expect(simulated.status == 0, "\(simulated.stderr)")
    #expect(simulated.statuses == ["stopped", "playing", "ended"])
  }

  /// `splay play` begins connecting before `main` (CEarlyConnect), from the raw arguments: only when they name
  /// no output and ask for no help. A script or test that asks for the simulated output must not start or
  /// touch the user's sound server, which may be socket-activated.
  @Test func onlyAPlayThatNamesNoOutputConnectsBeforeItsArgumentsAreParsed() throws {
    let server = try SilentSocket()
    let environment = ["PULSE_SERVER": "unix:" + server.path]
    let file = Splay.fixture("media/short-44k-stereo.flac")
    for arguments in [
      ["play", "--json", "--output", "simulated", file], ["play", "--output=simulated", file],
      ["play", "--help"], ["play", file, "-h"], ["info", file],
    ] {
      let result = try Splay.run(arguments, environment: environment)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      #expect(server.takeConnections() == 0, "\(arguments) connected to the sound server")
    }
    // Connects to the server PULSE_SERVER names, which never answers: the deadline ends the attempt.
    let result = try Splay.run(["play", "--json", file], environment: environment)
    #expect(result.status == 4, "\(result.stderr)")
    #expect(result.stderr.contains(server.path))
    #expect(server.takeConnections() >= 1)
  }

  @Test func usageErrorsExitTwo() throws {
    #expect(try Splay.run(["play"]).status == 2)
    #expect(try Splay.run(["play", "--volume", "200", "x.flac"]).status == 2)
    #expect(try Splay.run(["dance"]).status == 2)
    #expect(try Splay.run(["--help"]).status == 0)
  }

  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func theDemoPlaysTheFixtureIntoTheSink() async throws {
    try await ExclusiveSink.run {
      let recorder = try MonitorRecorder()
      let demo = try ChildProcess.run(
        [Splay.root + "/scripts/demo"],
        environment: ProcessInfo.processInfo.environment.merging(["SPLAY_BIN": Splay.binary]) { $1 },
        stdout: "/dev/null")
      let recording = recorder.stop()
      #expect(demo.status == 0, "\(demo.stderr)")
      let start = try #require(recording.firstAudibleFrame(threshold: 0.05))
      #expect(SignalAnalysis.ladderSteps(recording.left, from: start, rate: recording.rate, count: 12) == Array(0..<12))
    }
  }
}
