import AudioTestSupport
import Foundation
import Testing

/// `make install` and `make uninstall` (scripts/install-splay): a DESTDIR install puts exactly the binary, the
/// man page and the three completions in place, the page renders, and uninstall takes exactly those away.
@Suite struct InstallTests {
  private let script = Splay.root + "/scripts/install-splay"
  /// Built by `make test` (and `make install`) beside the test bundle.
  private let manualTool = Splay.root + "/.build/debug/generate-manual"
  private let expected = [
    "/usr/local/bin/splay", "/usr/local/share/bash-completion/completions/splay",
    "/usr/local/share/fish/vendor_completions.d/splay.fish", "/usr/local/share/man/man1/splay.1",
    "/usr/local/share/zsh/site-functions/_splay",
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

  @Test func aDestdirInstallPutsExactlyTheBinaryTheManPageAndTheCompletionsAndUninstallTakesThem() throws {
    try Skip.when(
      FileManager.default.isExecutableFile(atPath: manualTool)
        ? nil : "needs \(manualTool): `swift build --product generate-manual` (make test builds it)")
    let scratch = try ScratchDirectory("splay-install")
    let installed = try ChildProcess.run([
      script, "--destdir", scratch.path, "--prefix", "/usr/local", "--binary", Splay.binary, "--manual-tool",
      manualTool,
    ])
    #expect(installed.status == 0, "install: \(installed.stderr)")
    #expect(files(under: scratch.path) == expected)
    let listed = try ChildProcess.run([script, "--list", "--prefix", "/usr/local"])
    #expect(listed.stdout.split(separator: "\n").map(String.init).sorted() == expected, "--list names them")

    let version = try ChildProcess.run([scratch.path + "/usr/local/bin/splay", "--version"])
    #expect(version.status == 0 && !version.stdout.isEmpty, "the installed binary runs")

    let page = scratch.path + "/usr/local/share/man/man1/splay.1"
    var environment = ProcessInfo.processInfo.environment
    environment["MANWIDTH"] = "100"
    environment["MANPAGER"] = "cat"
    let rendered = try ChildProcess.run(["man", "-l", page], environment: environment)
    #expect(rendered.status == 0, "man -l renders the page: \(rendered.stderr)")
    for name in ["SPLAY(1)", "NAME", "SYNOPSIS", "play", "serve", "ctl", "run", "info", "--output"] {
      #expect(rendered.stdout.contains(name), "the page shows \(name)")
    }

    let completions = [
      ("share/bash-completion/completions/splay", "complete -"), ("share/zsh/site-functions/_splay", "#compdef splay"),
      ("share/fish/vendor_completions.d/splay.fish", "complete -c 'splay'"),
    ]
    for (path, marker) in completions {
      let text = try String(contentsOfFile: scratch.path + "/usr/local/" + path, encoding: .utf8)
      #expect(text.contains(marker), "\(path) is a completion script")
      #expect(text.contains("serve") && text.contains("ctl"), "\(path) completes the subcommands")
    }

    // Something of the user's beside the installed files stays.
    let mine = scratch.path + "/usr/local/bin/other-tool"
    #expect(FileManager.default.createFile(atPath: mine, contents: Data("#!/bin/sh\n".utf8)))
    let removed = try ChildProcess.run([script, "--uninstall", "--destdir", scratch.path, "--prefix", "/usr/local"])
    #expect(removed.status == 0)
    #expect(files(under: scratch.path) == ["/usr/local/bin/other-tool"], "uninstall removes exactly what it installed")
  }

  @Test func aBadOptionOrAMissingBinaryIsAClearErrorAndInstallsNothing() throws {
    let bad = try ChildProcess.run([script, "--prefx", "/usr"])
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("unknown option '--prefx'"))
    let scratch = try ScratchDirectory("splay-install")
    let missing = try ChildProcess.run([
      script, "--destdir", scratch.path, "--binary", scratch.path + "/no-such-splay", "--manual-tool", manualTool,
    ])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("is not built"))
    #expect(files(under: scratch.path).isEmpty)
  }
}
