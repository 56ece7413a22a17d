import AudioTestSupport
import Foundation
import PlayerPulse
import Testing

/// `splay check`: the stock scenarios against files, on the simulated output here (the server's run is
/// PulseCheckCommandTests), with what a user gets wrong said in one line.
@Suite struct CheckCommandTests {
  private var media: [String] {
    get throws {
      try FileManager.default.contentsOfDirectory(atPath: Splay.fixture("media")).sorted().map {
        Splay.fixture("media/\($0)")
      }
    }
  }

  @Test func everyScenarioPassesOnEveryFixtureOnTheSimulatedOutput() throws {
    let files = try media
    let result = try Splay.run(["check", "--output", "simulated"] + files)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    // The audio scenario cannot be judged without a server: said for each file, never passed.
    let checks = files.count * 7
    #expect(
      result.stdout.hasSuffix(
        "\(checks) checks: \(checks - files.count) passed, 0 failed, \(files.count) not judged\n"),
      "\(result.stdout)")
    #expect(result.stdout.contains("skip  audio         \(files[0]) ("), "\(result.stdout)")
    #expect(result.stdout.contains("s): not judged: the simulated output has no server to read"), "\(result.stdout)")
  }

  @Test func aScenarioIsAScriptAUserCanRead() throws {
    let result = try Splay.run(["check", "--show", "pause-resume"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("at $PAUSE_AT pause"))
    let storm = try Splay.run(["check", "--show", "storm", "--seed", "7"])
    #expect(storm.stdout.split(separator: "\n").count == 1_000 + 9, "the storm's 1,000 commands and its frame")
    #expect(try Splay.run(["check", "--show", "storm", "--seed", "7"]).stdout == storm.stdout, "a seed is repeatable")
  }

  @Test func aFileThatCannotBeOpenedFailsEachCheckAndExitsThree() throws {
    let result = try Splay.run([
      "check", "--output", "simulated", "--scenario", "seeks", "--scenario", "storm",
      Splay.fixture("media/short-44k-stereo.flac"), "/nonexistent/gone.flac",
    ])
    #expect(result.status == 3, "\(result.stderr)")
    #expect(result.stdout.contains("ok    seeks         " + Splay.fixture("media/short-44k-stereo.flac")))
    #expect(result.stdout.contains("4 checks: 2 passed, 2 failed"), "\(result.stdout)")
    #expect(result.stdout.contains("/nonexistent/gone.flac (0.0 s): load failed: file-not-found"), "\(result.stdout)")
    #expect(result.stderr.contains("2 of 4 checks failed"), "\(result.stderr)")
  }

  @Test func reportsListEachFileAndScenario() throws {
    let file = Splay.fixture("media/short-44k-stereo.flac")
    let tap = try Splay.run(["check", "--output", "simulated", "--report", "tap", "--scenario", "seeks", file])
    #expect(tap.status == 0)
    #expect(tap.stdout == "TAP version 13\n1..1\nok 1 - \(file): seeks\n")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("splay-check-\(getpid())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let xml = directory + "/check.xml"
    let junit = try Splay.run(["check", "--output", "simulated", "--report", "junit=\(xml)", file])
    #expect(junit.status == 0)
    let parsed = try PulseEnvironment.run(
      "/usr/bin/python3",
      [
        "-c",
        "import sys, xml.etree.ElementTree as E\nr = E.parse(sys.argv[1]).getroot()\n"
          + "print(r.get('tests'), r.get('failures'), r.get('skipped'), [c.get('name') for c in r.iter('testcase')])",
        xml,
      ])
    #expect(
      parsed.stdout
        == "7 0 1 ['play-to-end', 'seeks', 'pause-resume', 'gapless-pair', 'volume-steps', 'storm', 'audio']\n",
      "\(parsed.stderr)")
  }

  @Test func anUnknownScenarioOrNoFileIsAUsageError() throws {
    let unknown = try Splay.run(["check", "--scenario", "fly", Splay.fixture("media/short-44k-stereo.flac")])
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("unknown scenario 'fly' (expected one of: play-to-end, seeks"))
    let none = try Splay.run(["check"])
    #expect(none.status == 2)
    #expect(none.stderr.contains("name the files to check"))
  }
}

/// `splay check fixtures/media/*` on the sandbox of `make test`, and on a file of each decoder at each rate on the
/// servers of `make test-servers`.
@Suite(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
struct PulseCheckCommandTests {
  /// Every fixture on the sandbox. Elsewhere what differs is the server, not the decoder: a file of each
  /// decoder, both rates and layouts, and the short file; the two 30 s sweeps alone would add a minute and a
  /// half of playing to each of the three flavours (`make test` checks them on the sandbox).
  private static let checkedOnEveryServer: Set<String> = [
    "ladder-44k-stereo.flac", "ladder-44k-stereo.mp3", "ladder-44k-stereo.ogg", "ladder-48k-mono.opus",
    "ladder-48k-mono.wav", "short-44k-stereo.flac",
  ]

  @Test func everyScenarioPassesOnEveryFixtureOnTheServer() async throws {
    // Besides the fixtures, a chirp at the sink's own rate: no stretch of it repeats, so its audio is judged
    // wherever the sink does not rewind (the fixtures' ladders are steady tones, judged or not by where a
    // pause falls).
    let facts = try await PulseProbe(server: nil).facts(sink: PulseEnvironment.sink).settled.get()
    let chirp = FileManager.default.temporaryDirectory.appendingPathComponent("splay-check-chirp-\(getpid()).wav").path
    try StereoWAV.write(frames: 3 * facts.rate, rate: facts.rate, to: chirp) { frame in
      let t = Double(frame) / Double(facts.rate)
      return 0.5 * sin(2 * Double.pi * (200 * t + 300 * t * t))
    }
    defer { try? FileManager.default.removeItem(atPath: chirp) }
    let fixtures = try FileManager.default.contentsOfDirectory(atPath: Splay.fixture("media")).sorted().filter {
      PulseEnvironment.flavour == "pulse" || Self.checkedOnEveryServer.contains($0)
    }
    #expect(fixtures.count >= Self.checkedOnEveryServer.count, "a fixture checked on every server is missing")
    let files = fixtures.map { Splay.fixture("media/\($0)") } + [chirp]
    try await ExclusiveSink.run {
      // A run whose only failures are audio judgements on PipeWire is run again, as the sample-exact checks
      // are (PulseEnvironment.graphMayGlitch, BackToBack): three runs at most, and the last must pass.
      var result = try Splay.run(["check"] + files, timeout: 600)
      for _ in 1..<PulseEnvironment.attemptsAllowingGlitches {
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL ") }
        guard !failures.isEmpty, failures.allSatisfy({ $0.hasPrefix("FAIL  audio ") }) else { break }
        print("PulseCheckCommandTests: \(failures.joined(separator: "; ")); running the check again")
        result = try Splay.run(["check"] + files, timeout: 600)
      }
      let checks = files.count * 7
      #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
      #expect(result.stdout.contains("\(checks) checks: "), "\(result.stdout)")
      #expect(result.stdout.contains(" 0 failed"), "\(result.stdout)")
      // The audio scenario is judged where the sink plays a file at its own rate, without rewinds, and where the
      // file is not a steady tone at the place it is judged (the lossless ladders at 48 kHz); elsewhere each
      // says why it was not. Every other scenario passes.
      let lines = result.stdout.split(separator: "\n")
      let audio = lines.filter { $0.contains(" audio ") }
      #expect(audio.count == files.count)
      #expect(audio.allSatisfy { $0.hasPrefix("ok ") || $0.contains(": not judged: ") }, "\(audio)")
      #expect(lines.filter { $0.hasPrefix("ok ") }.count == checks - audio.filter { !$0.hasPrefix("ok ") }.count)
      let judged = audio.filter { $0.hasPrefix("ok ") }.count
      if PulseEnvironment.flavour == "pulse-plain" {
        #expect(judged == 0, "a rewinding sink's monitor cannot judge: \(audio)")
      } else {
        #expect(result.stdout.contains("ok    audio         \(chirp) ("), "\(audio)")
      }
    }
  }
}
