import Testing

@testable import SplayConfig

/// `config.toml`, key by key: every key's accepted values with the line they came from, and every kind of
/// mistake reported at its line.
@Suite struct UserConfigTests {
  private static func parse(_ text: String) throws(ConfigError) -> UserConfig {
    try UserConfig.parse(text, path: "/h/.config/splay/config.toml", home: "/h")
  }

  /// The error `text` gives, as splay prints it.
  private static func error(_ text: String) -> String? {
    do {
      _ = try parse(text)
      return nil
    } catch {
      return error.description
    }
  }

  @Test func everyKeyIsReadWithItsLine() throws {
    let config = try Self.parse(
      """
      # splay's defaults
      output = "simulated"
      server = "unix:/run/user/1000/pulse/native"
      sink = "alsa_output.usb"

      deadline = 5
      volume = 40
      socket = "~/splay.sock"
      mpris = false
      resume = false
      on-track = 'notify-send "$SPLAY_TITLE"'
      on-state = 'cat > /tmp/splay-state.json'
      replaygain = "album"
      replaygain-preamp = 3.5
      replaygain-untagged = -6
      replaygain-clip = true
      """)
    #expect(config.output == ConfigValue(value: "simulated", line: 2))
    #expect(config.server == ConfigValue(value: "unix:/run/user/1000/pulse/native", line: 3))
    #expect(config.sink == ConfigValue(value: "alsa_output.usb", line: 4))
    #expect(config.deadline == ConfigValue(value: 5, line: 6))
    #expect(config.volume == ConfigValue(value: 40, line: 7))
    #expect(config.socket == ConfigValue(value: "/h/splay.sock", line: 8))
    #expect(config.mpris == ConfigValue(value: false, line: 9))
    #expect(config.resume == ConfigValue(value: false, line: 10))
    #expect(config.onTrack == ConfigValue(value: "notify-send \"$SPLAY_TITLE\"", line: 11))
    #expect(config.onState == ConfigValue(value: "cat > /tmp/splay-state.json", line: 12))
    #expect(config.replayGain == ConfigValue(value: "album", line: 13))
    #expect(config.replayGainPreamp == ConfigValue(value: 3.5, line: 14))
    #expect(config.replayGainUntagged == ConfigValue(value: -6, line: 15))
    #expect(config.replayGainClip == ConfigValue(value: true, line: 16))
  }

  @Test func anEmptyFileSetsNothing() throws {
    let config = try Self.parse("# nothing yet\n")
    #expect(config == UserConfig(path: "/h/.config/splay/config.toml"))
  }

  @Test func aFractionalDeadlineAndAnAbsoluteSocket() throws {
    let config = try Self.parse("deadline = 0.5\nsocket = '/tmp/s.sock'\n")
    #expect(config.deadline?.value == 0.5)
    #expect(config.socket?.value == "/tmp/s.sock")
  }

  /// Rows: the file, and the one line splay prints for it.
  @Test(arguments: [
    ("volume = 40\nvolum = 3", "/h/.config/splay/config.toml:2: unknown key 'volum' (did you mean 'volume'?)"),
    (
      "colour = 1",
      "/h/.config/splay/config.toml:1: unknown key 'colour' (known keys: output, server, sink, deadline, volume, socket, mpris, resume, on-track, on-state, replaygain, replaygain-preamp, replaygain-untagged, replaygain-clip)"
    ),
    ("\n[sound]\nmode = 'album'", "/h/.config/splay/config.toml:2: unknown table [sound]"),
    ("output = \"alsa\"", "/h/.config/splay/config.toml:1: output must be \"pulse\" or \"simulated\", found \"alsa\""),
    ("output = 1", "/h/.config/splay/config.toml:1: output must be \"pulse\" or \"simulated\", found 1"),
    ("server = \"\"", "/h/.config/splay/config.toml:1: server must be a non-empty string, found \"\""),
    ("sink = true", "/h/.config/splay/config.toml:1: sink must be a non-empty string, found true"),
    (
      "deadline = 0",
      "/h/.config/splay/config.toml:1: deadline must be a number of seconds, more than 0 and at most 600, found 0"
    ),
    (
      "deadline = 601",
      "/h/.config/splay/config.toml:1: deadline must be a number of seconds, more than 0 and at most 600, found 601"
    ),
    (
      "deadline = nan",
      "/h/.config/splay/config.toml:1: deadline must be a number of seconds, more than 0 and at most 600, found nan"
    ),
    (
      "deadline = \"3\"",
      "/h/.config/splay/config.toml:1: deadline must be a number of seconds, more than 0 and at most 600, found \"3\""
    ),
    ("volume = 101", "/h/.config/splay/config.toml:1: volume must be an integer from 0 to 100, found 101"),
    ("volume = 40.5", "/h/.config/splay/config.toml:1: volume must be an integer from 0 to 100, found 40.5"),
    ("volume = \"40%\"", "/h/.config/splay/config.toml:1: volume must be an integer from 0 to 100, found \"40%\""),
    ("mpris = \"no\"", "/h/.config/splay/config.toml:1: mpris must be true or false, found \"no\""),
    ("socket = []", "/h/.config/splay/config.toml:1: socket must be a non-empty string, found an array"),
    (
      "replaygain = \"loud\"",
      "/h/.config/splay/config.toml:1: replaygain must be \"off\" or \"track\" or \"album\" or \"auto\", found \"loud\""
    ),
    (
      "replaygain = true",
      "/h/.config/splay/config.toml:1: replaygain must be \"off\" or \"track\" or \"album\" or \"auto\", found true"
    ),
    (
      "replaygain-preamp = 20",
      "/h/.config/splay/config.toml:1: replaygain-preamp must be a number of decibels from -15 to 15, found 20"
    ),
    (
      "replaygain-untagged = '-6 dB'",
      "/h/.config/splay/config.toml:1: replaygain-untagged must be a number of decibels from -15 to 15, found \"-6 dB\""
    ),
    ("replaygain-clip = 1", "/h/.config/splay/config.toml:1: replaygain-clip must be true or false, found 1"),
    (
      "replaygain-pramp = 1",
      "/h/.config/splay/config.toml:1: unknown key 'replaygain-pramp' (did you mean 'replaygain-preamp'?)"
    ),
  ])
  func aMistakeIsReportedAtItsLine(text: String, message: String) {
    #expect(Self.error(text) == message)
  }

  /// A line that does not parse is reported where the TOML parser stopped.
  @Test func aSyntaxErrorNamesItsLine() throws {
    let message = try #require(Self.error("output = \"pulse\"\nvolume = \n"))
    #expect(message.hasPrefix("/h/.config/splay/config.toml:2: "))
    let duplicate = try #require(Self.error("volume = 1\nvolume = 2\n"))
    #expect(duplicate.hasPrefix("/h/.config/splay/config.toml:2: "))
  }

  /// A multi-line string's lines are its text: a `[` or `key =` there neither opens a table nor sets a key, and
  /// the keys after it keep their lines.
  @Test func aMultiLineStringDoesNotMoveTheLines() {
    let text = "on-state = '''\n[ -n \"$SPLAY_TITLE\" ] && echo\nvolume = 3\n'''\nvolum = 40\n"
    #expect(Self.error(text) == "/h/.config/splay/config.toml:5: unknown key 'volum' (did you mean 'volume'?)")
  }

  @Test func aDottedKeyIsReportedAtItsLine() {
    #expect(
      Self.error("volume = 1\nmpris.enabled = false\n")
        == "/h/.config/splay/config.toml:2: mpris must be true or false, found a table")
  }

  @Test func theFirstMistakeInTheFileIsTheOneReported() {
    #expect(Self.error("zeta = 1\nalpha = 2") == Self.error("zeta = 1"))
  }

  @Test func theFileIsFoundByTheXDGRules() {
    #expect(ConfigLocation.path(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/splay/config.toml")
    #expect(
      ConfigLocation.path(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"]) == "/h/.config/splay/config.toml")
    #expect(ConfigLocation.path(environment: ["HOME": "/h"]) == "/h/.config/splay/config.toml")
    #expect(ConfigLocation.path(environment: [:]) == nil)
  }

  @Test func aMissingFileIsAnEmptyConfigAndAnUnreadableOneAnError() {
    #expect((try? UserConfig.load(path: "/nonexistent/config.toml", home: nil))?.exists == false)
    #expect(throws: ConfigError(path: "/", line: nil, message: "cannot read it: Is a directory")) {
      try UserConfig.load(path: "/", home: nil)
    }
  }
}
