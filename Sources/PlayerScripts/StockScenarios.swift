import PlayerCore

/// The scenarios `splay check` runs against each file: playback scripts written for any track, given its path
/// and length as variables (`$FILE`, `$DURATION` and points derived from it), so that every check is a script a
/// user can read (`splay check --show NAME`) and run alone.
public enum StockScenarios {
  /// The scenarios in the order they run.
  public static let names = [
    "play-to-end", "seeks", "pause-resume", "gapless-pair", "volume-steps", "storm", "audio",
  ]

  /// The commands of the storm scenario.
  public static let stormLength = 1_000

  /// The script of scenario `name` (nil for an unknown one), for a track of `duration` seconds; the storm's
  /// commands come from `seed`.
  public static func script(_ name: String, seed: UInt64 = 1) -> String? {
    switch name {
    case "play-to-end": playToEnd
    case "seeks": seeks
    case "pause-resume": pauseResume
    case "gapless-pair": gaplessPair
    case "volume-steps": volumeSteps
    case "storm": storm(seed: seed)
    case "audio": audio
    default: nil
    }
  }

  /// The variables a scenario reads, for the file at `path` of `duration` seconds.
  public static func variables(path: String, duration: Double) -> ScriptVariables {
    func text(_ seconds: Double) -> String { formatSeconds(max(0, seconds)) }
    return ScriptVariables([
      "FILE": path,
      "DURATION": text(duration),
      "HALF": text(duration / 2),
      // The pause of pause-resume: a second in, or a quarter of a short track.
      "PAUSE_AT": text(min(1, duration / 4)),
      "RESUME_TO": text(min(1, duration / 4) + min(0.5, duration / 4)),
      // Half a second (at most a quarter of the track) before the end.
      "NEAR_END": text(duration - min(0.5, duration / 4)),
      // Where the audio scenario seeks to.
      "QUARTER": text(duration / 4),
      // How long play-to-end may take: the track, and a margin for the server's start and drain.
      "LIMIT": text(duration + 30),
    ])
  }

  private static let playToEnd = """
    # Plays the whole track: the end is confirmed once the server drained it, at the track's length.
    load "$FILE"
    play
    expect state playing
    wait until ended timeout $LIMIT
    expect state ended
    expect position $DURATION ± 0.05
    """

  private static let seeks = """
    # Seeks to the start, the middle, the end and past the end, playing and paused.
    load "$FILE"
    play
    seek $HALF
    expect position $HALF ± 0.05
    seek 0
    expect position 0 ± 0.05
    expect state playing
    pause
    seek 100%
    expect state paused
    expect position $DURATION ± 0.05
    seek +10
    expect state paused
    expect position $DURATION ± 0.05
    seek $HALF
    expect position $HALF ± 0.05
    play
    expect state playing
    stop
    expect position 0
    """

  private static let pauseResume = """
    # Pauses on the audio clock and resumes where it paused.
    load "$FILE"
    play
    at $PAUSE_AT pause
    expect state paused
    expect position $PAUSE_AT ± 0.05
    wait 0.3
    expect position $PAUSE_AT ± 0.05
    play
    expect state playing
    wait until position >= $RESUME_TO
    expect state playing
    stop
    expect state stopped
    """

  private static let gaplessPair = """
    # The track twice in a row: the second follows the first in one stream, confirmed when it is heard.
    load "$FILE" "$FILE"
    play
    pause
    seek $NEAR_END
    play
    wait until track 2
    expect track 2
    expect state playing
    expect position 0 ± 0.6
    stop
    """

  private static let volumeSteps = """
    # Volume down and up in steps, and mute, each confirmed by the server.
    load "$FILE"
    play
    volume 100
    repeat 4 {
      volume -25
    }
    expect volume 0
    repeat 2 {
      volume +50
    }
    expect volume 100
    mute on
    expect volume 100
    mute off
    volume 60
    expect volume 60
    stop
    """

  private static let audio = """
    # The audio at the sink: the track's own samples from its start, from a seek to the frame, silence while
    # paused, and the resume without a break. Judged while paused, so that a short track cannot end first; not
    # judged where the sink cannot be (the reason is noted). At full volume: the samples as decoded.
    volume 100
    load "$FILE"
    play
    wait 0.1
    pause
    expect audio playing 0
    seek $QUARTER
    play
    wait 0.1
    pause
    expect audio playing $QUARTER ± 1ms
    expect audio silent
    play
    wait 0.1
    pause
    expect audio playing $QUARTER ± 1ms
    stop
    """

  /// 1,000 commands that are valid in any state of an open track (seeks, volumes, toggles), sent as fast as
  /// they are confirmed, then a check that the player ends where the last of them put it.
  private static func storm(seed: UInt64) -> String {
    var random = SplitMix(seed: seed)
    var lines = [
      "# \(stormLength) random seeks, volumes and toggles (seed \(seed)), each confirmed.", "load \"$FILE\"", "play",
    ]
    var volume = 100
    for _ in 0..<stormLength {
      switch random.next() % 3 {
      case 0: lines.append("seek \(random.next() % 90)%")
      case 1:
        volume = Int(random.next() % 101)
        lines.append("volume \(volume)")
      default: lines.append("toggle")
      }
    }
    lines += [
      "pause", "seek $HALF", "expect state paused", "expect position $HALF ± 0.05", "expect volume \(volume)", "stop",
    ]
    return lines.joined(separator: "\n")
  }

  /// A small seeded generator (SplitMix64): the same seed gives the same storm on every machine.
  private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }
}
