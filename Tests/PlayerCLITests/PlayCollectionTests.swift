import AudioTestSupport
import Foundation
import Testing

/// A music collection as a person points splay at it: folders, playlists of each kind, a list on stdin.
@Suite(.serialized) struct PlayCollectionTests {
  /// A folder tree whose natural order is 2, 10 / 1, 3 / a, and whose byte order is not; each track is one
  /// ladder step, so the recording says which played when.
  private static func makeTree(in scratch: ScratchDirectory) throws -> (
    root: String, order: [(path: String, step: Int)]
  ) {
    let root = scratch.path + "/Music ♪"
    let tracks: [(String, Int)] = [
      ("Album 2/2 - first.wav", 1), ("Album 2/10 - second.wav", 5), ("Album 10/1 - Ünïcode 日本.wav", 3),
      ("Album 10/3 - fourth.wav", 7),
    ]
    for (relative, step) in tracks { try ToneTracks.write(step: step, to: root + "/" + relative) }
    try Data("not audio".utf8).write(to: URL(fileURLWithPath: root + "/Album 2/cover.jpg"))
    try ToneTracks.write(step: 9, to: root + "/Album 2/.hidden.wav")
    return (root, tracks.map { (root + "/" + $0.0, $0.1) })
  }

  /// Plays `arguments` on the real server and checks that the sink heard `steps`, one track after the other.
  private func expectHeard(
    _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], steps: [Int],
    status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try await ExclusiveSink.run {
      let recorder = try MonitorRecorder()
      let result = try Splay.run(["play", "--json"] + arguments, environment: environment, stdin: stdin)
      let recording = recorder.stop()
      #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
      let start = try #require(recording.firstAudibleFrame(threshold: 0.05), sourceLocation: sourceLocation)
      // The order is judged here; gaplessness by PulseOutputTests, under control. A dropout on a busy machine
      // is said, not failed.
      let heard = SignalAnalysis.ladderStepsAcrossSilences(
        recording.left, from: start, rate: recording.rate, count: steps.count * ToneTracks.quarters)
      if !heard.silences.isEmpty { print("\(arguments): silences of \(heard.silences) frames in the recording") }
      let expected = steps.flatMap { Array(repeating: $0, count: ToneTracks.quarters) }
      #expect(heard.steps == expected, sourceLocation: sourceLocation)
    }
  }

  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func aFolderPlaysItsTracksInNaturalOrder() async throws {
    let scratch = try ScratchDirectory()
    let tree = try Self.makeTree(in: scratch)
    try await expectHeard([tree.root], steps: tree.order.map(\.step))
  }

  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func aLibrarySearchPlaysWhatItFindsOnTheServer() async throws {
    let scratch = try ScratchDirectory()
    let tree = try Self.makeTree(in: scratch)
    let environment = ["XDG_CACHE_HOME": scratch.path + "/cache", "XDG_STATE_HOME": scratch.path + "/state"]
    let added = try Splay.run(["library", "add", tree.root], environment: environment)
    #expect(added.status == 0, "\(added.stderr)")
    // The phrase "album 10" is in two paths (the words alone are in a third, `Album 2/10 - second.wav`); the index
    // gives them in natural path order.
    let queued = try Splay.run(
      ["play", "--json", "--output", "simulated", "--search", "\"ALBUM 10\""], environment: environment)
    #expect(queued.queue == [tree.order[2].path, tree.order[3].path], "\(queued.stdout)")
    try await expectHeard(["--search", "\"ALBUM 10\""], environment: environment, steps: [3, 7])
  }

  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func playlistsOfEachKindAndAListOnStdinPlayInTheirOrder() async throws {
    let scratch = try ScratchDirectory()
    let tree = try Self.makeTree(in: scratch)
    let reversed = Array(tree.order.reversed())
    // M3U8 beside the music: relative paths, CRLF, a byte-order mark, #EXTINF and a missing entry.
    let m3u = tree.root + "/mix.m3u8"
    let relative = reversed.map { "#EXTINF:1,x\r\n" + String($0.path.dropFirst(tree.root.count + 1)) + "\r\n" }
    try Data(("\u{FEFF}#EXTM3U\r\n" + relative.joined() + "gone.wav\r\n").utf8).write(to: URL(fileURLWithPath: m3u))
    // PLS elsewhere, with absolute paths out of order.
    let pls = scratch.path + "/list.pls"
    let entries = tree.order.enumerated().reversed().map { "File\($0.offset + 1)=\($0.element.path)\n" }
    try Data(("[playlist]\n" + entries.joined() + "NumberOfEntries=4\n").utf8).write(to: URL(fileURLWithPath: pls))

    // Exit 3: the missing entry was reported and skipped.
    try await expectHeard([m3u], steps: reversed.map(\.step), status: 3)
    try await expectHeard([pls], steps: tree.order.map(\.step))
    try await expectHeard(
      ["-"], stdin: [tree.order[2].path, tree.order[0].path].joined(separator: "\n") + "\n",
      steps: [tree.order[2].step, tree.order[0].step])
  }

  /// A truncated FLAC plays what it holds (0.372 s of the ladder's 3 s) on the real server, then the next track.
  @Test(.enabled(if: PulseEnvironment.available, "needs the private PulseAudio server of `make test`"))
  func aTruncatedFlacPlaysItsDecodablePart() async throws {
    try await ExclusiveSink.run {
      let scratch = try ScratchDirectory()
      let after = scratch.path + "/after.wav"
      try ToneTracks.write(step: 9, to: after)
      let recorder = try MonitorRecorder()
      let result = try Splay.run(["play", "--json", Splay.fixture("broken/truncated.flac"), after])
      let recording = recorder.stop()
      #expect(result.status == 3, "\(result.stderr)")
      #expect(result.stderr.contains("the audio ends at 0:00.372 of the 0:03.000"), "\(result.stderr)")
      let start = try #require(recording.firstAudibleFrame(threshold: 0.05))
      // Step 0 of the ladder for its first quarter second, then (gapless) the next track's step 9.
      let first = SignalAnalysis.ladderStep(in: recording.left[(start + 2000)..<(start + 9000)], rate: 44_100)
      #expect(first == 0)
      let next = start + 16_406  // 0.372 s in
      let then = SignalAnalysis.ladderStep(in: recording.left[(next + 2000)..<(next + 9000)], rate: 44_100)
      #expect(then == 9, "the next track follows where the damaged one's audio ended")
    }
  }

  @Test func theCountAndEveryMissingEntryAreReportedAndTheExitStatusSaysSo() throws {
    let scratch = try ScratchDirectory()
    let tree = try Self.makeTree(in: scratch)
    let m3u = scratch.path + "/list.m3u"
    try Data("Music ♪/Album 2/2 - first.wav\nnope.flac\n".utf8).write(to: URL(fileURLWithPath: m3u))
    let result = try Splay.run(["play", "--json", "--output", "simulated", tree.root, m3u])
    #expect(result.status == 3, "\(result.stderr)")
    let lines = result.stderr.split(separator: "\n").map(String.init)
    #expect(lines.contains("splay: \(tree.root): 4 tracks"), "\(lines)")
    #expect(lines.contains("splay: \(m3u): 1 track, 1 skipped"), "\(lines)")
    #expect(lines.contains("splay: \(m3u):2: \(scratch.path)/nope.flac: no such file"), "\(lines)")
    let queue = result.queue
    #expect(queue == tree.order.map(\.path) + [tree.order[0].path])
    #expect(result.statuses.last == "ended")
  }

  @Test func aFolderWithNothingToPlayExitsThreeNamingIt() throws {
    let scratch = try ScratchDirectory()
    try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.path + "/notes.txt"))
    let result = try Splay.run(["play", "--json", "--output", "simulated", scratch.path])
    #expect(result.status == 3)
    #expect(result.stderr.contains("\(scratch.path): no audio files in it"), "\(result.stderr)")
    #expect(result.stderr.contains("nothing to play"), "\(result.stderr)")
  }

  @Test func scriptsAndTheSocketLoadFoldersAndPlaylists() throws {
    let scratch = try ScratchDirectory()
    let tree = try Self.makeTree(in: scratch)
    let script = scratch.path + "/s.splay"
    try Data(
      """
      load "Music ♪"
      expect track 1
      enqueue "Music ♪/Album 10"
      next
      expect track 2
      load "empty"
      expect error no-tracks

      """.utf8
    ).write(to: URL(fileURLWithPath: script))
    try FileManager.default.createDirectory(atPath: scratch.path + "/empty", withIntermediateDirectories: false)
    let run = try Splay.run(["run", "--output", "simulated", script])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")

    let server = try Server()
    let client = try ControlClient(path: server.path)
    let m3u = scratch.path + "/l.m3u"
    try Data("Music ♪/Album 10\nmissing.wav\n".utf8).write(to: URL(fileURLWithPath: m3u))
    client.request(["id": 1, "command": "load", "args": [m3u]])
    client.request(["id": 2, "command": "play"])
    let loaded = try #require(client.next())
    #expect(loaded["id"] as? Int == 1)
    #expect((loaded["state"] as? [String: Any])?["queueLength"] as? Int == tree.order.count - 2)
    #expect(loaded["skipped"] as? [String] == ["\(m3u):2: \(scratch.path)/missing.wav: no such file"])
    let played = try #require(client.next())
    #expect(played["id"] as? Int == 2, "a request sent behind a load of a folder waits for it")
    #expect((played["state"] as? [String: Any])?["status"] as? String == "playing")
  }

  @Test func startAndVolumeTakeTheGrammarOfScriptsAndTheSocket() throws {
    let file = Splay.fixture("media/sweep-30s.flac")
    let result = try Splay.run([
      "play", "--json", "--output", "simulated", "--start", "0:12.5", "--volume", "40%", file,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let playing = try #require(result.jsonLines.first { $0["status"] as? String == "playing" })
    #expect((playing["position"] as? [String: Any])?["seconds"] as? Double == 12.5)
    #expect(playing["volume"] as? Int == 40)
    let half = try Splay.run(["play", "--json", "--output", "simulated", "--start", "50%", file])
    let halfway = try #require(half.jsonLines.first { $0["status"] as? String == "playing" })
    #expect((halfway["position"] as? [String: Any])?["seconds"] as? Double == 15)
    for bad in [["--start", "+5"], ["--start", "1:75"], ["--volume", "+5"], ["--volume", "140%"]] {
      let refused = try Splay.run(["play", "--output", "simulated"] + bad + [file])
      #expect(refused.status == 2, "\(bad)")
      #expect(refused.stderr.contains(bad[0]), "\(bad): \(refused.stderr)")
    }
  }
}
