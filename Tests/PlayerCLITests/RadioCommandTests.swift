import AudioTestSupport
import Foundation
import Testing

/// Streams as a user names them: `info` and `play` of URLs, a playlist of stations, `ctl load`, and the errors,
/// against fixtures/servers/radio.py on 127.0.0.1.
@Suite struct RadioCommandTests {
  @Test func infoTellsAFileFromALiveStation() throws {
    let server = try RadioServer()
    let file = server.url("/files/ladder-44k-stereo.flac")
    let live = server.url("/live.wav?seconds=60")
    let result = try Splay.run(["info", file, live])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix(file + ": FLAC, 16-bit, 44.1 kHz, stereo, 0:03.000") == true, "\(lines)")
    #expect(lines.last?.hasPrefix(live + ": WAV/PCM_S16LE, 44.1 kHz, stereo, live stream") == true, "\(lines)")
    #expect(lines.last?.hasSuffix("album \"splay test radio\"") == true, "\(lines)")
    let json = try Splay.run(["info", "--json", live])
    let track = try #require(json.jsonLines.first)
    #expect(track["live"] as? Bool == true)
    #expect(track["duration"] == nil, "a live stream has no duration")
  }

  @Test func aPlaylistOfStationsAndFilesPlaysThemAsTheyAre() throws {
    let server = try RadioServer()
    let scratch = try ScratchDirectory("splay-radio")
    let list = scratch.path + "/stations.m3u"
    let file = server.url("/files/short-44k-stereo.flac")
    try "#EXTM3U\n#EXTINF:-1,Test\n\(file)\nsmb://nas/x.flac\n".write(toFile: list, atomically: true, encoding: .utf8)
    let result = try Splay.run(["play", "--output", "simulated", "--json", list])
    #expect(result.status == 3, "the smb:// entry was skipped: \(result.stderr)")
    #expect(result.queue == [file])
    #expect(result.statuses.last == "ended")
    #expect(result.stderr.contains("stations.m3u:4: smb://nas/x.flac: cannot decode"), "\(result.stderr)")
  }

  @Test func aStationThatNeverAnswersFailsWithinTheDeadline() throws {
    let server = try RadioServer()
    let stall = server.url("/stall")
    let result = try Splay.run(["play", "--output", "simulated", "--deadline", "1", stall])
    #expect(result.status == 3)
    #expect(result.stderr.contains("splay: \(stall): no answer within 1.0 s"), "\(result.stderr)")
    #expect(result.seconds < 3, "took \(result.seconds) s")
    let refused = try Splay.run(["info", "http://127.0.0.1:1/radio"])
    #expect(refused.status == 3)
    #expect(refused.stderr.hasPrefix("splay: http://127.0.0.1:1/radio: connection refused\n"), "\(refused.stderr)")
  }

  @Test func ctlLoadsAStationAsItIsAndSeekIsRefusedWithTheReason() throws {
    let server = try RadioServer()
    let live = server.url("/live.wav?seconds=60")
    let serve = try Server()
    let load = try Splay.run(["ctl", "--socket", serve.path, "--json", "load", live])
    #expect(load.status == 0, "\(load.stderr)")
    let play = try Splay.run(["ctl", "--socket", serve.path, "--json", "play"])
    #expect(play.jsonLines.first?["status"] as? String == "playing", "\(play.stdout)")
    let seek = try Splay.run(["ctl", "--socket", serve.path, "seek", "+5"])
    #expect(seek.status == 1)
    #expect(seek.stderr.contains("seek is not possible in a live stream"), "\(seek.stderr)")
    let queue = try Splay.run(["ctl", "--socket", serve.path, "--json", "queue"])
    #expect(queue.stdout.contains(live.replacingOccurrences(of: "/", with: "\\/")) || queue.stdout.contains(live))
  }
}
