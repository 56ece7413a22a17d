import AudioTestSupport
import Foundation
import Testing

/// The README's usage examples of `play` and `info`, run as written (the simulated output added to `play`),
/// in a folder that holds the files they name.
@Suite struct ReadmeExamplesTests {
  static let examples: [String] = {
    let readme = (try? String(contentsOfFile: Splay.root + "/README.md", encoding: .utf8)) ?? ""
    guard let usage = readme.range(of: "## Usage\n\n```sh\n"),
      let end = readme.range(of: "```", range: usage.upperBound..<readme.endIndex)
    else { return [] }
    return readme[usage.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
      .filter { $0.contains("splay play") || $0.hasPrefix("splay info") }
  }()

  @Test func theUsageBlockHasExamplesToRun() {
    #expect(Self.examples.count >= 5, "\(Self.examples)")
  }

  @Test(arguments: examples)
  func anExampleRunsAsWritten(line: String) throws {
    let scratch = try ScratchDirectory("splay-readme")
    let home = scratch.path
    for (name, fixture) in [
      ("song.flac", "media/ladder-44k-stereo.flac"), ("other.mp3", "media/ladder-44k-stereo.mp3"),
      ("a.flac", "media/sweep-30s.flac"), ("Music/Album/1 - one.flac", "media/short-44k-stereo.flac"),
      ("Music/Album/2 - two.ogg", "media/ladder-44k-stereo.ogg"), ("live.flac", "media/ladder-44k-stereo.flac"),
      ("Music/Björk/Hyperballad.flac", "media/short-44k-stereo.flac"),
    ] {
      try FileManager.default.createDirectory(
        atPath: (home + "/" + name as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: Splay.fixture(fixture), toPath: home + "/" + name)
    }
    try Data("#EXTM3U\nsong.flac\nMusic/Album\n".utf8).write(to: URL(fileURLWithPath: home + "/mix.m3u8"))
    try Data("[playlist]\nFile1=other.mp3\n".utf8).write(to: URL(fileURLWithPath: home + "/radio.pls"))
    let cue = (1...3).map { "TRACK 0\($0) AUDIO\nINDEX 01 00:0\($0 - 1):00\n" }.joined()
    try Data(("FILE \"live.wav\" WAVE\n" + cue).utf8).write(to: URL(fileURLWithPath: home + "/live.cue"))
    // `splay` on PATH: the built binary, with `play` sent to the simulated output.
    try FileManager.default.createDirectory(atPath: home + "/bin", withIntermediateDirectories: true)
    let wrapper = """
      #!/bin/sh
      if [ "$1" = play ]; then shift; exec \(Splay.binary) play --output simulated --json "$@"; fi
      exec \(Splay.binary) "$@"

      """
    try Data(wrapper.utf8).write(to: URL(fileURLWithPath: home + "/bin/splay"))
    chmod(home + "/bin/splay", 0o755)
    // A search finds what `splay library add ~/Music` indexed, as the README's line before it says.
    let setUp = line.contains("--search") ? "splay library add Music 2>/dev/null && " : ""
    // The example station is a file on the test server (the simulated output never ends a live one).
    let server = try RadioServer()
    let command = line.replacingOccurrences(
      of: "https://radio.example/live.mp3", with: server.url("/files/ladder-44k-stereo.mp3"))
    let result = try Splay.run(
      ["-c", "cd '\(home)' && " + setUp + command],
      environment: [
        "HOME": home, "PATH": home + "/bin:/usr/bin:/bin", "XDG_CACHE_HOME": home + "/.cache",
        "XDG_STATE_HOME": home + "/.local/state",
      ], program: "/bin/sh")
    #expect(result.status == 0, "\(line)\n\(result.stderr)")
    if line.contains("splay play") { #expect(result.statuses.last == "ended", "\(line)\n\(result.stdout)") }
  }
}
