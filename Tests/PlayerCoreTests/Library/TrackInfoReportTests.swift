import Testing

@testable import PlayerCore
@testable import PlayerLibrary

/// What `info` prints, in which order and in what blocks, and the exit status it leads to.
@Suite struct TrackInfoReportTests {
  private enum Written: Equatable {
    case out(String)
    case error(String)
  }

  private final class Log: @unchecked Sendable {
    var written: [Written] = []
  }

  private func report(_ log: Log, failed: Bool = false, eachLine: Bool = false) -> TrackInfoReport {
    TrackInfoReport(
      failed: failed, eachLine: eachLine, out: { log.written.append(.out(String(decoding: $0, as: UTF8.self))) },
      error: { log.written.append(.error($0)) })
  }

  private func info(_ path: String, damage: String? = nil) -> TrackInfo {
    var info = TrackInfo(path: path, format: "FLAC", sampleRate: 44_100, channels: 2, frames: 44_100)
    info.damage = damage
    return info
  }

  @Test func aMessageComesAfterTheLinesBeforeItAndFailsTheReport() {
    let log = Log()
    var report = report(log)
    report.add("a", for: info("a.flac"), at: "a.flac")
    report.add("b", for: info("b.flac"), at: "b.flac")
    report.add(.fileNotFound(path: "c.flac"))
    report.add("d", for: info("d.flac", damage: "2 frames skipped"), at: "d.flac")
    report.add("e", for: info("e.flac"), at: "e.flac")
    let failed = report.finish()
    #expect(failed)
    #expect(
      log.written == [
        .out("a\nb\n"), .error(PlayerError.fileNotFound(path: "c.flac").message), .out("d\n"),
        .error("d.flac: 2 frames skipped"), .out("e\n"),
      ])
  }

  @Test func tracksThatAllReadPassUnlessEntriesWereLeftOut() {
    let log = Log()
    var clean = report(log)
    clean.add("a", for: info("a.flac"), at: "a.flac")
    let cleanFailed = clean.finish()
    #expect(!cleanFailed)
    var incomplete = report(log, failed: true)
    incomplete.add("a", for: info("a.flac"), at: "a.flac")
    let incompleteFailed = incomplete.finish()
    #expect(incompleteFailed)
    #expect(log.written == [.out("a\n"), .out("a\n")], "nothing said about a list left incomplete before")
  }

  @Test func manyLinesGoOutInBlocksOfAtLeast64KiB() {
    let log = Log()
    var report = report(log)
    let line = String(repeating: "x", count: 99)
    for index in 0..<2_000 { report.add(line, for: info("\(index).flac"), at: "\(index).flac") }
    let failed = report.finish()
    #expect(!failed)
    let blocks = log.written.map { written -> Int in
      guard case .out(let text) = written else { return -1 }
      return text.utf8.count
    }
    #expect(blocks.reduce(0, +) == 200_000)
    #expect(blocks.dropLast().allSatisfy { $0 >= 1 << 16 } && blocks.count == 4, "\(blocks)")
  }

  /// On a terminal every line goes out as it is made: a slow disk must not hold 650 lines back.
  @Test func eachLineGoesOutAloneForATerminal() {
    let log = Log()
    var report = report(log, eachLine: true)
    report.add("a", for: info("a.flac"), at: "a.flac")
    report.add("b", for: info("b.flac"), at: "b.flac")
    #expect(log.written == [.out("a\n"), .out("b\n")], "sent before the report finished")
  }

  /// `run(over:)` reads each track, prints its text line (or what `json` makes) and reports those it could not
  /// read in their place; ReplayGain tags the reader knew are printed as given.
  @Test func runningOverTracksReadsEachAndReportsFailuresInPlace() {
    let log = Log()
    var text = report(log)
    let gains = ReplayGainTags(trackGain: -6.2)
    let failed = text.run(over: ["a.flac", "gone.flac", "b.flac"], json: nil) { path throws(PlayerError) in
      guard path != "gone.flac" else { throw .fileNotFound(path: path) }
      return (info(path), gains)
    }
    #expect(failed)
    #expect(
      log.written == [
        .out(TrackInfoLine.text(info("a.flac"), gains: gains) + "\n"),
        .error(PlayerError.fileNotFound(path: "gone.flac").message),
        .out(TrackInfoLine.text(info("b.flac"), gains: gains) + "\n"),
      ])
    #expect(log.written.first.map { "\($0)".contains("replaygain track -6.20 dB") } == true)

    let jsonLog = Log()
    var json = report(jsonLog)
    let line: (TrackInfo) -> String = { "{\"path\":\"\($0.path)\"}" }
    let jsonFailed = json.run(over: ["a.flac"], json: line) { path throws(PlayerError) in (info(path), nil) }
    #expect(!jsonFailed)
    #expect(jsonLog.written == [.out("{\"path\":\"a.flac\"}\n")])
  }
}
