import AudioTestSupport
import Foundation
import Testing

/// splay as an MPRIS player on a real session bus (a private `dbus-daemon` per test), driven by the real
/// playerctl and watched with dbus-monitor and busctl, beside `splay ctl` on the same server.
@Suite(.enabled(if: SessionBus.missing == nil, "needs dbus-daemon, dbus-monitor, dbus-send and playerctl"))
struct MPRISTests {
  static let sweep = Splay.fixture("media/sweep-30s.flac")
  static let ladder = Splay.fixture("media/ladder-44k-stereo.flac")

  /// `splay ctl COMMAND...` on `server`, its JSON state (nil when it failed).
  @discardableResult
  static func ctl(_ server: Server, _ arguments: String...) throws -> [String: Any]? {
    let result = try Splay.run(["ctl", "--socket", server.path] + arguments)
    return result.status == 0 ? result.jsonLines.first : nil
  }

  /// Calls `method` (interface and member) of splay's object with dbus-send, waiting for the reply.
  static func call(_ bus: SessionBus, _ method: String, _ arguments: String...) throws -> Splay.Result {
    try bus.run(
      "dbus-send",
      ["--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.splay", "/org/mpris/MediaPlayer2", method]
        + arguments)
  }

  /// The published position in seconds, moved on to now by the server (`ctl status` refreshes it).
  static func position(_ state: [String: Any]?) -> Double {
    (state?["position"] as? [String: Any])?["seconds"] as? Double ?? -1
  }

  /// A served simulated player on `bus` with the sweep, the ladder and the sweep again loaded, once playerctl
  /// sees it.
  static func loadedServer(on bus: SessionBus) throws -> Server {
    let server = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer(), "playerctl never listed splay")
    try ctl(server, "load", sweep, ladder, sweep)
    return server
  }

  @Test func playerctlDrivesThePlayerAndEachCommandRepliesOnceConfirmed() throws {
    let bus = try SessionBus()
    let server = try Self.loadedServer(on: bus)
    #expect(try bus.playerctl("status").stdout == "Stopped")

    // Every playerctl command returns once splay replied, and splay replies once the server confirmed: the
    // state read right after already has it.
    #expect(try bus.playerctl("play-pause").status == 0)
    #expect(try Self.ctl(server, "status")?["status"] as? String == "playing")
    #expect(try bus.playerctl("status").stdout == "Playing")

    #expect(try bus.playerctl("position", "10").status == 0)
    let at10 = Self.position(try Self.ctl(server, "status"))
    #expect(at10 >= 10 && at10 < 11.5, "\(at10)")
    #expect(try bus.playerctl("position", "5+").status == 0)
    let at15 = Self.position(try Self.ctl(server, "status"))
    #expect(at15 >= 15 && at15 < 16.5, "\(at15)")
    let reported = Double(try bus.playerctl("position").stdout) ?? -1
    #expect(reported >= 15 && reported < 17, "\(reported)")

    #expect(try bus.playerctl("volume", "0.5").status == 0)
    #expect(try Self.ctl(server, "status")?["volume"] as? Int == 50)
    #expect(try bus.playerctl("volume").stdout == "0.500000")

    #expect(try bus.playerctl("next").status == 0)
    let next = try Self.ctl(server, "status")
    #expect(next?["index"] as? Int == 1)
    let track = next?["track"] as? [String: Any]
    let title = try #require(track?["title"] as? String)
    let artist = try #require(track?["artist"] as? String)
    #expect(try bus.playerctl("metadata", "--format", "{{title}} {{artist}}").stdout == "\(title) \(artist)")
    #expect(try bus.playerctl("metadata", "mpris:trackid").stdout == "'/org/splay/track/1'", "printed as a GVariant")
    #expect(try bus.playerctl("metadata", "xesam:url").stdout == URL(fileURLWithPath: Self.ladder).absoluteString)
    #expect(try bus.playerctl("previous").status == 0)
    #expect(try Self.ctl(server, "status")?["index"] as? Int == 0)

    #expect(try bus.playerctl("loop", "Track").status == 0)
    #expect(try Self.ctl(server, "status")?["repeat"] as? String == "one")
    #expect(try bus.playerctl("loop").stdout == "Track")
    #expect(try bus.playerctl("shuffle", "On").status == 0)
    #expect(try Self.ctl(server, "status")?["shuffle"] as? Bool == true)
    #expect(try bus.playerctl("shuffle").stdout == "On")

    #expect(try bus.playerctl("play-pause").status == 0)
    #expect(try Self.ctl(server, "status")?["status"] as? String == "paused")
    #expect(try bus.playerctl("status").stdout == "Paused")
  }

  /// playerctl's `--follow`, the PropertiesChanged signals and `splay ctl follow` see the same transitions, in
  /// the same order: each confirmed change once, and nothing for a command the player refused.
  @Test func followersSeeExactlyTheConfirmedTransitionsInOrder() async throws {
    let bus = try SessionBus()
    let server = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer())
    try Self.ctl(server, "load", Self.sweep)
    let scratch = try ScratchDirectory("splay-follow")
    let monitor = try bus.start(
      "dbus-monitor", ["--session", "type='signal',path='/org/mpris/MediaPlayer2'"], output: scratch.path + "/monitor")
    let follow = try bus.start("playerctl", ["--player=splay", "--follow", "status"], output: scratch.path + "/follow")
    let ctlFollow = try ChildProcess(
      [Splay.binary, "ctl", "--json", "--socket", server.path, "follow"], stdout: scratch.path + "/ctl")
    func text(_ name: String) -> String {
      (try? String(contentsOfFile: scratch.path + "/" + name, encoding: .utf8)) ?? ""
    }
    for _ in 0..<500 where text("follow").isEmpty || text("ctl").isEmpty || !text("monitor").contains("NameAcquired") {
      usleep(10_000)
    }

    #expect(try bus.playerctl("play").status == 0)
    try Self.ctl(server, "pause")
    #expect(try bus.playerctl("pause").status == 0, "already paused: succeeds, changes nothing")
    #expect(try bus.playerctl("play-pause").status == 0)
    try Self.ctl(server, "stop")
    // dbus-send: playerctl does not call Pause while CanPause is false.
    let refused = try Self.call(bus, "org.mpris.MediaPlayer2.Player.Pause")
    #expect(refused.status != 0, "pause is not possible while stopped")
    #expect(refused.stderr.contains("org.splay.Error.InvalidState"), "\(refused.stderr)")
    #expect(try bus.playerctl("play").status == 0)
    try Self.ctl(server, "seek", "20")
    #expect(try bus.playerctl("stop").status == 0)

    func collapsed(_ list: [String]) -> [String] {
      list.reduce(into: []) { result, status in if result.last != status { result.append(status) } }
    }
    let mpris = ["playing": "Playing", "paused": "Paused"]
    func confirmed() -> [String] {
      text("ctl").split(separator: "\n").compactMap { line -> String? in
        let state = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return (state?["status"] as? String).map { mpris[$0] ?? "Stopped" }
      }
    }
    func followed() -> [String] { text("follow").split(separator: "\n").map(String.init) }
    // Each PropertiesChanged that names PlaybackStatus is a change, in order.
    func announced() -> [String] {
      let lines = text("monitor").split(separator: "\n").map(String.init)
      return lines.indices.filter { lines[$0].contains(#"string "PlaybackStatus""#) && $0 + 1 < lines.count }.map {
        lines[$0 + 1].split(separator: "\"").dropFirst().first.map(String.init) ?? "?"
      }
    }
    let expected = ["Stopped", "Playing", "Paused", "Playing", "Stopped", "Playing", "Stopped"]
    // The last stop reaches the three listeners as each writes it out.
    _ = await waitFor(within: 5) {
      collapsed(confirmed()) == expected && collapsed(followed()) == expected
        && announced() == Array(expected.dropFirst())
    }
    // SIGKILL (see SessionBus.deinit); each of them writes every line out as it prints it.
    for process in [monitor, follow, ctlFollow] { kill(process.pid, SIGKILL) }
    for process in [monitor, follow, ctlFollow] { _ = process.wait(timeout: 5) }

    #expect(collapsed(confirmed()) == expected, "splay ctl follow")
    #expect(collapsed(followed()) == expected, "playerctl --follow")
    #expect(announced() == Array(expected.dropFirst()), "PropertiesChanged")
    // Position is never announced.
    #expect(!text("monitor").contains(#"string "Position""#))
    let lines = text("monitor").split(separator: "\n").map(String.init)
    // The seek to 20 s is announced with Seeked, at 20 s.
    let seeked = lines.indices.filter { lines[$0].contains("member=Seeked") && $0 + 1 < lines.count }.compactMap {
      Int64(lines[$0 + 1].split(separator: " ").last ?? "")
    }
    #expect(seeked.contains { $0 >= 20_000_000 && $0 < 21_000_000 }, "\(seeked)")
  }

  /// busctl's view of the object: the spec's types and flags, and GetAll on both interfaces.
  @Test(.enabled(if: SessionBus.tool("busctl") != nil, "needs busctl (systemd)"))
  func introspectionHasTheSpecsTypesAndGetAllSucceeds() throws {
    let bus = try SessionBus()
    let server = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer())
    let destination = ["org.mpris.MediaPlayer2.splay", "/org/mpris/MediaPlayer2"]
    let introspection = try bus.run("busctl", ["--user", "introspect"] + destination)
    #expect(introspection.status == 0, "\(introspection.stderr)")
    var members: [String: String] = [:]
    for line in introspection.stdout.split(separator: "\n") where line.hasPrefix(".") {
      // NAME TYPE SIGNATURE RESULT/VALUE FLAGS: a method's result and flags are one word each; a property's
      // value may be several, and its flags too.
      let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
      let flags = words.reversed().prefix { ["const", "emits-change", "writable"].contains($0) }.reversed()
      members[String(words[0].dropFirst())] =
        words[1] == "property"
        ? ([words[1], words[2]] + flags).joined(separator: " ") : words[1...].joined(separator: " ")
    }
    let expected = [
      "Raise": "method - - -", "Quit": "method - - -", "CanQuit": "property b const", "CanRaise": "property b const",
      "HasTrackList": "property b const", "Identity": "property s const", "SupportedUriSchemes": "property as const",
      "SupportedMimeTypes": "property as const", "Next": "method - - -", "Previous": "method - - -",
      "Pause": "method - - -", "PlayPause": "method - - -", "Stop": "method - - -", "Play": "method - - -",
      "Seek": "method x - -", "SetPosition": "method ox - -", "OpenUri": "method s - -", "Seeked": "signal x - -",
      "PlaybackStatus": "property s emits-change", "LoopStatus": "property s emits-change writable",
      "Rate": "property d emits-change writable", "Shuffle": "property b emits-change writable",
      "Metadata": "property a{sv} emits-change", "Volume": "property d emits-change writable",
      "Position": "property x", "MinimumRate": "property d const", "MaximumRate": "property d const",
      "CanGoNext": "property b emits-change", "CanGoPrevious": "property b emits-change",
      "CanPlay": "property b emits-change", "CanPause": "property b emits-change",
      "CanSeek": "property b emits-change", "CanControl": "property b const",
    ]
    for (name, description) in expected { #expect(members[name] == description, "\(name)") }

    for loaded in [false, true] {
      if loaded { try Self.ctl(server, "load", Self.sweep) }
      for (interface, count) in [("org.mpris.MediaPlayer2", 6), ("org.mpris.MediaPlayer2.Player", 15)] {
        let all = try bus.run(
          "busctl", ["--user", "call"] + destination + ["org.freedesktop.DBus.Properties", "GetAll", "s", interface])
        #expect(all.status == 0, "\(interface): \(all.stderr)")
        #expect(all.stdout.hasPrefix("a{sv} \(count) "), "\(interface): \(all.stdout)")
      }
    }
  }

  /// Property writes go through splay's filter: they reply once confirmed, refuse bad values with InvalidArgs,
  /// and leave the read-only properties to sd-bus's own error.
  @Test(.enabled(if: SessionBus.tool("busctl") != nil, "needs busctl (systemd)"))
  func propertyWritesReplyOnceConfirmedAndRefuseBadValues() throws {
    let bus = try SessionBus()
    let server = try Self.loadedServer(on: bus)
    func set(_ property: String, _ type: String, _ value: String) throws -> Splay.Result {
      try bus.run(
        "busctl",
        [
          "--user", "set-property", "org.mpris.MediaPlayer2.splay", "/org/mpris/MediaPlayer2",
          "org.mpris.MediaPlayer2.Player", property, type, value,
        ])
    }
    #expect(try set("Volume", "d", "0.25").status == 0)
    #expect(try Self.ctl(server, "status")?["volume"] as? Int == 25)
    #expect(try set("LoopStatus", "s", "Playlist").status == 0)
    #expect(try Self.ctl(server, "status")?["repeat"] as? String == "all")
    #expect(try set("Shuffle", "b", "true").status == 0)
    #expect(try Self.ctl(server, "status")?["shuffle"] as? Bool == true)
    let forever = try set("LoopStatus", "s", "Forever")
    #expect(forever.status != 0 && forever.stderr.contains("None, Track or Playlist"), "\(forever.stderr)")
    let text = try set("Volume", "s", "loud")
    #expect(text.status != 0 && text.stderr.contains("takes a value of type 'd'"), "\(text.stderr)")
    let readOnly = try set("PlaybackStatus", "s", "Playing")
    #expect(readOnly.status != 0, "read-only")
    #expect(try Self.ctl(server, "status")?["status"] as? String == "stopped", "nothing else changed")
    #expect(try Self.ctl(server, "status")?["repeat"] as? String == "all")
  }

  /// When the session's bus goes away, splay goes on playing and serving its socket, without a word and without
  /// spinning.
  @Test func theBusGoingAwayLeavesThePlayerAlone() throws {
    let bus = try SessionBus()
    let server = try Server(keepingLog: true, environment: bus.environment)
    #expect(bus.waitForPlayer())
    try Self.ctl(server, "load", Self.sweep)
    bus.stop()
    usleep(200_000)
    func ticks() throws -> Int {
      let stat = try String(contentsOfFile: "/proc/\(server.process.pid)/stat", encoding: .utf8)
      let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
      // utime and stime: fields 14 and 15 of stat(5), 12 and 13 after the command name.
      guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
        throw CocoaError(.fileReadCorruptFile)
      }
      return user + system
    }
    let before = try ticks()
    usleep(1_000_000)
    // The simulated output's clock ticks every 10 ms; a spinning bus thread would take the whole second.
    #expect(try ticks() - before < 30, "CPU ticks in one idle second")
    #expect(try Self.ctl(server, "play")?["status"] as? String == "playing")
    #expect(server.stderr == "splay: serving on \(server.path)\n")
  }

  @Test func aRefusedCommandIsADBusErrorNamedByItsCode() throws {
    let bus = try SessionBus()
    let server = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer())
    // dbus-send, not playerctl: playerctl does not call Next while CanGoNext is false.
    let next = try Self.call(bus, "org.mpris.MediaPlayer2.Player.Next")
    #expect(next.status != 0)
    #expect(next.stderr.contains("org.splay.Error.InvalidState: next is not possible while idle"), "\(next.stderr)")
    #expect(try bus.playerctl("status").stdout == "Stopped", "the connection stays up")
    withExtendedLifetime(server) {}
  }

  @Test func openUriLoadsAndPlaysAFileWhoseNameNeedsEscaping() throws {
    let bus = try SessionBus()
    let server = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer())
    let scratch = try ScratchDirectory("splay-open")
    let path = try scratch.copy("media/ladder-44k-stereo.flac", as: "Ä b #1?.flac")
    let url = URL(fileURLWithPath: path).absoluteString
    #expect(try bus.playerctl("open", url).status == 0)
    let state = try Self.ctl(server, "status")
    #expect(state?["status"] as? String == "playing")
    #expect((try Self.ctl(server, "queue")?["queue"] as? [String: Any])?["paths"] as? [String] == [path])
    #expect(try bus.playerctl("metadata", "xesam:url").stdout == url)
    let web = try Self.call(bus, "org.mpris.MediaPlayer2.Player.OpenUri", "string:smb://nas/a.mp3")
    #expect(web.status != 0)
    #expect(web.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(web.stderr)")
    let after = try Self.ctl(server, "queue")?["queue"] as? [String: Any]
    #expect(after?["paths"] as? [String] == [path], "nothing changed")
  }

  /// `playerctl open` of a station's http URL (against fixtures/servers/radio.py on 127.0.0.1) loads it as it is
  /// and plays it live: the URL is the queue, xesam:url and the title, and a live stream cannot seek.
  @Test func openUriPlaysAnInternetStation() throws {
    let radio = try RadioServer()
    let live = radio.url("/live.wav?seconds=60")
    let bus = try SessionBus()
    let server = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer())
    #expect(try bus.playerctl("open", live).status == 0)
    let state = try Self.ctl(server, "status")
    #expect(state?["status"] as? String == "playing", "\(String(describing: state))")
    #expect((try Self.ctl(server, "queue")?["queue"] as? [String: Any])?["paths"] as? [String] == [live])
    #expect(try bus.playerctl("metadata", "xesam:url").stdout == live)
    #expect(try bus.playerctl("metadata", "mpris:length").status != 0, "a live stream has no length")
    let canSeek = try Self.call(
      bus, "org.freedesktop.DBus.Properties.Get", "string:org.mpris.MediaPlayer2.Player", "string:CanSeek")
    #expect(canSeek.stdout.contains("boolean false"), "\(canSeek.stdout)\(canSeek.stderr)")
  }

  @Test(.enabled(if: SessionBus.tool("ffmpeg") != nil, "needs ffmpeg to embed a picture"))
  func theTracksPictureIsItsArtURL() throws {
    let bus = try SessionBus()
    let server = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer())
    let scratch = try ScratchDirectory("splay-art 音")
    try FileManager.default.createDirectory(atPath: scratch.path + "/Album", withIntermediateDirectories: true)
    let track = try scratch.copy("media/ladder-44k-stereo.flac", as: "Album/01 a.flac")
    let bare = try scratch.copy("media/short-44k-stereo.flac", as: "02 b.flac")
    for picture in ["Album/back.jpg", "Album/Cover.JPG", "Album/scan.png"] {
      try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: scratch.path + "/" + picture))
    }
    // A track with its picture inside (as shops and iTunes deliver them), in a folder with no picture.
    let image = scratch.path + "/front.png"
    let embedded = scratch.path + "/03 c.mp3"
    let made = try [
      ["-f", "lavfi", "-i", "color=c=green:s=16x16", "-frames:v", "1", image],
      [
        "-i", Splay.fixture("media/short-44k-stereo.flac"), "-i", image, "-map", "0:a", "-map", "1", "-c:a",
        "libmp3lame",
        "-c:v", "copy", "-disposition:v", "attached_pic", embedded,
      ],
    ].map { try bus.run("ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + $0).status }
    #expect(made == [0, 0])
    try FileManager.default.removeItem(atPath: image)

    try Self.ctl(server, "load", track, bare, embedded)
    let cover = URL(fileURLWithPath: scratch.path + "/Album/Cover.JPG").absoluteString
    #expect(try bus.playerctl("metadata", "mpris:artUrl").stdout == cover, "the folder's cover")
    try Self.ctl(server, "next")
    let none = try bus.playerctl("metadata", "mpris:artUrl")
    #expect(none.stdout.isEmpty, "a track without a picture has no art: \(none.stdout)")
    #expect(try bus.playerctl("metadata", "xesam:url").stdout == URL(fileURLWithPath: bare).absoluteString)
    try Self.ctl(server, "next")
    let written = try #require(URL(string: try bus.playerctl("metadata", "mpris:artUrl").stdout))
    #expect(written.isFileURL && written.path.hasSuffix(".png"), "\(written)")
    let png = FileManager.default.contents(atPath: written.path).map(Array.init) ?? []
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the embedded picture, written out")
  }

  @Test func aSecondPlayerTakesAnInstanceName() throws {
    let bus = try SessionBus()
    let first = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer())
    let second = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer("splay.instance\(second.process.pid)"))
    withExtendedLifetime(first) {}
  }

  @Test func quitEndsServe() throws {
    let bus = try SessionBus()
    let server = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer())
    let quit = try Self.call(bus, "org.mpris.MediaPlayer2.Quit")
    #expect(quit.status == 0, "answered before quitting: \(quit.stderr)")
    #expect(server.process.wait(timeout: 5) == 0)
    #expect(!FileManager.default.fileExists(atPath: server.path))
  }

  @Test func noMPRISKeepsSplayOffTheBus() throws {
    let bus = try SessionBus()
    let server = try Server(extra: ["--no-mpris"], environment: bus.environment)
    #expect(try Self.ctl(server, "status") != nil)
    usleep(300_000)
    let list = try bus.run("playerctl", ["--list-all"])
    #expect(!list.stdout.contains("splay"), "\(list.stdout)")
  }

  /// `mpris = false` in the config keeps splay off the bus; `--mpris` on the command line wins over it.
  @Test func theConfigCanTurnMPRISOffAndTheFlagWins() throws {
    let bus = try SessionBus()
    let home = try ConfigFileTests.ConfigHome("mpris = false\n")
    let environment = bus.environment.merging(home.environment) { $1 }
    let quiet = try Server(environment: environment)
    #expect(try Self.ctl(quiet, "status") != nil)
    usleep(300_000)
    #expect(!(try bus.run("playerctl", ["--list-all"]).stdout.contains("splay")))
    let offered = try Server(extra: ["--mpris"], environment: environment)
    #expect(try Self.ctl(offered, "status") != nil)
    #expect(bus.waitForPlayer())
    let players = try bus.run("playerctl", ["--list-all"]).stdout.split(separator: "\n")
    #expect(players.filter { $0.hasPrefix("splay") }.count == 1, "only the server with --mpris: \(players)")
  }

  /// Tags that are not UTF-8 (a Latin-1 title in a WAV's INFO chunk) reach the bus repaired, and the connection
  /// stays up: a bus daemon disconnects a client that sends invalid UTF-8.
  @Test func tagsThatAreNotUTF8ReachTheBusRepaired() throws {
    let bus = try SessionBus()
    let server = try Server(environment: bus.environment)
    #expect(bus.waitForPlayer())
    let scratch = try ScratchDirectory("splay-tags")
    let path = scratch.path + "/latin1.wav"
    try Data(Self.wave(title: Array("Caf".utf8) + [0xE9, 0x20, 0xFF, 0xFE, 0x21])).write(to: URL(fileURLWithPath: path))
    try Self.ctl(server, "load", path)
    #expect(try bus.playerctl("metadata", "title").stdout == "Caf\u{FFFD} \u{FFFD}\u{FFFD}!")
    #expect(try bus.playerctl("status").stdout == "Stopped", "still connected")
  }

  /// The README's playerctl examples (all but `--follow`, which does not end) run as written against a playing
  /// splay.
  @Test func theReadmesPlayerctlExamplesRun() throws {
    let readme = try String(contentsOfFile: Splay.root + "/README.md", encoding: .utf8)
    let section = try #require(readme.range(of: "## Media keys, playerctl, waybar"))
    let end = readme.range(of: "\n## ", range: section.upperBound..<readme.endIndex)?.lowerBound ?? readme.endIndex
    let examples = readme[section.upperBound..<end].split(separator: "\n")
      .filter { $0.hasPrefix("playerctl ") && !$0.contains("--follow") }.map(String.init)
    #expect(examples.count >= 4, "\(examples)")
    let bus = try SessionBus()
    let server = try Self.loadedServer(on: bus)
    try Self.ctl(server, "play")
    for line in examples {
      let result = try Splay.run(["-c", line], environment: bus.environment, program: "/bin/sh")
      #expect(result.status == 0, "\(line)\n\(result.stderr)")
    }
  }

  /// A second of 8 kHz mono silence in a WAV file whose LIST/INFO chunk gives it the title `title` (raw bytes).
  static func wave(title: [UInt8]) -> [UInt8] {
    func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
      Array(id.utf8) + le32(body.count) + body + (body.count % 2 == 1 ? [0] : [])
    }
    let format = le16(1) + le16(1) + le32(8_000) + le32(16_000) + le16(2) + le16(16)
    let name = title + [0]
    let info = chunk("LIST", Array("INFO".utf8) + chunk("INAM", name))
    let body = Array("WAVE".utf8) + chunk("fmt ", format) + info + chunk("data", [UInt8](repeating: 0, count: 16_000))
    return chunk("RIFF", body)
  }
}

/// Without a session bus, splay plays and serves as before, and says nothing about it.
@Suite struct MPRISWithoutABusTests {
  static let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/splay-test-bus"]

  @Test func serveSaysNothingAboutAMissingBus() throws {
    let server = try Server(keepingLog: true, environment: Self.noBus)
    let status = try Splay.run(["ctl", "--socket", server.path, "load", MPRISTests.sweep])
    #expect(status.status == 0)
    #expect(server.stderr == "splay: serving on \(server.path)\n")
  }

  @Test func playSaysNothingAboutAMissingBus() throws {
    let play = try Splay.run(
      ["play", "--output", "simulated", "--json", Splay.fixture("media/short-44k-stereo.flac")], environment: Self.noBus
    )
    #expect(play.status == 0)
    #expect(play.stderr.isEmpty, "\(play.stderr)")
  }
}
