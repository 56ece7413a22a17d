import AudioTestSupport
import Foundation
import Testing

/// `make install` and `make uninstall` (scripts/install-splay): a DESTDIR install puts exactly the binary, the
/// man page, the three completions and the manifest in place, the page renders, and uninstall takes away what
/// it installed and nothing else.
@Suite struct InstallTests {
  private let script = Splay.root + "/scripts/install-splay"
  /// Built by `make test` (and `make release`).
  private let manualTool = Splay.root + "/.build/debug/generate-manual"
  private let expected = [
    "/usr/local/bin/splay", "/usr/local/bin/splay-library", "/usr/local/share/bash-completion/completions/splay",
    "/usr/local/share/fish/vendor_completions.d/splay.fish", "/usr/local/share/man/man1/splay.1",
    "/usr/local/share/splay/installed", "/usr/local/share/zsh/site-functions/_splay",
  ]

  /// Every regular file under `root`, as paths below it, sorted.
  private func files(under root: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: root)
    var found: [String] = []
    while let relative = enumerator?.nextObject() as? String {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory),
        !isDirectory.boolValue
      {
        found.append("/" + relative)
      }
    }
    return found.sorted()
  }

  /// Installs into a fresh folder whose name has a space (as a DESTDIR may), dated by `SOURCE_DATE_EPOCH=0`.
  private func install() throws -> (destdir: String, scratch: ScratchDirectory) {
    try Skip.when(
      FileManager.default.isExecutableFile(atPath: manualTool)
        ? nil : "needs \(manualTool): `swift build --product generate-manual` (make test builds it)")
    let scratch = try ScratchDirectory("splay-install")
    let destdir = scratch.path + "/stage dir"
    var environment = ProcessInfo.processInfo.environment
    environment["SOURCE_DATE_EPOCH"] = "0"
    let installed = try ChildProcess.run(
      [script, "--destdir", destdir, "--prefix", "/usr/local", "--binary", Splay.binary, "--manual-tool", manualTool],
      environment: environment)
    #expect(installed.status == 0, "install: \(installed.stderr)")
    return (destdir, scratch)
  }

  @Test func aDestdirInstallPutsExactlyTheBinaryTheManPageTheCompletionsAndTheManifest() throws {
    let (destdir, scratch) = try install()
    _ = scratch
    #expect(files(under: destdir) == expected)
    let listed = try ChildProcess.run([script, "--list", "--prefix", "/usr/local"])
    #expect(listed.stdout.split(separator: "\n").map(String.init).sorted() == expected, "--list names them")

    let version = try ChildProcess.run([destdir + "/usr/local/bin/splay", "--version"])
    #expect(version.status == 0 && !version.stdout.isEmpty, "the installed binary runs")
    let library = try ChildProcess.run(
      [destdir + "/usr/local/bin/splay", "library", "roots"],
      environment: ["XDG_STATE_HOME": scratch.path + "/state", "XDG_CACHE_HOME": scratch.path + "/cache"])
    #expect(library.status == 0, "the installed splay finds splay-library beside it: \(library.stderr)")

    var environment = ProcessInfo.processInfo.environment
    environment["MANWIDTH"] = "200"
    environment["MANPAGER"] = "cat"
    let rendered = try ChildProcess.run(
      ["man", "-l", destdir + "/usr/local/share/man/man1/splay.1"], environment: environment)
    #expect(rendered.status == 0, "man -l renders the page: \(rendered.stderr)")
    #expect(rendered.stdout.contains("SPLAY(1)") && rendered.stdout.contains("SYNOPSIS"))
    #expect(rendered.stdout.contains("1970"), "SOURCE_DATE_EPOCH dates the page")
    // Each subcommand's line of `splay --help` (name and abstract) is on the page.
    let help = try ChildProcess.run([Splay.binary, "--help"], environment: ["COLUMNS": "200"])
    // The section's first block: one line per subcommand, before the blank line and the "See …" hint.
    let section = help.stdout.components(separatedBy: "SUBCOMMANDS:\n").last ?? ""
    let subcommands = (section.components(separatedBy: "\n\n").first ?? "").split(separator: "\n")
      .map { $0.split(separator: " ", omittingEmptySubsequences: true) }
    #expect(subcommands.count == 9, "play, run, serve, ctl, info, config, library, search, check: \(help.stdout)")
    for words in subcommands {
      let abstract = words.dropFirst().prefix(4).joined(separator: " ")
      #expect(rendered.stdout.contains(abstract), "the page describes \(words[0]): '\(abstract)'")
    }

    let completions = [
      ("share/bash-completion/completions/splay", "complete -"), ("share/zsh/site-functions/_splay", "#compdef splay"),
      ("share/fish/vendor_completions.d/splay.fish", "complete -c 'splay'"),
    ]
    for (path, marker) in completions {
      let text = try String(contentsOfFile: destdir + "/usr/local/" + path, encoding: .utf8)
      #expect(text.contains(marker), "\(path) is a completion script")
      #expect(text.contains("serve") && text.contains("ctl"), "\(path) completes the subcommands")
    }
  }

  @Test func uninstallRemovesWhatItInstalledAndKeepsWhatChangedOrWasNeverOurs() throws {
    let (destdir, scratch) = try install()
    _ = scratch
    let mine = destdir + "/usr/local/bin/other-tool"
    #expect(FileManager.default.createFile(atPath: mine, contents: Data("#!/bin/sh\n".utf8)))
    let edited = destdir + "/usr/local/share/zsh/site-functions/_splay"
    let handle = try #require(FileHandle(forWritingAtPath: edited))
    handle.seekToEndOfFile()
    handle.write(Data("# a user's own line\n".utf8))
    handle.closeFile()
    let removed = try ChildProcess.run([script, "--uninstall", "--destdir", destdir, "--prefix", "/usr/local"])
    #expect(removed.status == 1, "a kept file makes the exit status 1")
    #expect(removed.stderr.contains("kept") && removed.stderr.contains("_splay"))
    #expect(files(under: destdir) == ["/usr/local/bin/other-tool", "/usr/local/share/zsh/site-functions/_splay"])
    let again = try ChildProcess.run([script, "--uninstall", "--destdir", destdir, "--prefix", "/usr/local"])
    #expect(again.status == 1 && again.stderr.contains("nothing removed"), "no manifest: nothing is removed")
  }

  @Test func aBadOptionAPrefixThatIsNotAFolderOrAMissingBinaryIsAClearErrorAndInstallsNothing() throws {
    let bad = try ChildProcess.run([script, "--prefx", "/usr"])
    #expect(bad.status == 2 && bad.stderr.contains("unknown option '--prefx'"))
    let empty = try ChildProcess.run([script, "--uninstall", "--prefix", ""])
    #expect(empty.status == 2 && empty.stderr.contains("absolute path"), "an empty PREFIX never means /")
    let scratch = try ScratchDirectory("splay-install")
    let missing = try ChildProcess.run([
      script, "--destdir", scratch.path, "--binary", scratch.path + "/no-such-splay", "--manual-tool", manualTool,
    ])
    #expect(missing.status == 1 && missing.stderr.contains("is not built"))
    #expect(files(under: scratch.path).isEmpty)
  }
}
