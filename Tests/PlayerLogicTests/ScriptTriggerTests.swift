import Futures
import PlayerCore
import PlayerScripts
import PlayerTestSupport
import Testing

/// `at`, `on` and `wait until position|track` on the simulated output: each fires at the very instant of
/// virtual time its point is confirmed, and fails, naming why, when playback stops short of it.
@Suite struct ScriptTriggerTests {
  /// Runs `text` on a fresh harness; returns the failure, the trigger notes and the harness.
  private func run(_ text: String) async throws -> (failure: ScriptRunner.Failure?, notes: [String], harness: Harness) {
    let harness = Harness()
    let notes = Locked<[String]>([])
    let runner = ScriptRunner(
      controller: harness.controller, timeline: harness.timeline,
      onNote: { note in notes.withLock { $0.append(note) } })
    let failure = await runner.run(try ScriptParser.parse(text, name: "t.splay"))
    return (failure, notes.withLock { $0 }, harness)
  }

  @Test func atFiresTheCommandWhenTheConfirmedPositionReachesItsTime() async throws {
    let (failure, notes, harness) = try await run(
      """
      load long.flac
      play
      at 5.25 seek 12
      expect position 12 ± 0
      at end-2 pause
      expect position 28 ± 0
      """)
    #expect(failure == nil, "\(String(describing: failure))")
    #expect(
      notes == [
        "t.splay:3: at 5.25: confirmed 5.25 s, 0.0 ms late", "t.splay:5: at end-2: confirmed 28 s, 0.0 ms late",
      ])
    // The seek went out at 5.25 s of audio: the state before it was confirmed there, to the microsecond.
    let beforeSeek = try #require(harness.states.last { $0.position.seconds < 12 && $0.status == .playing })
    #expect(abs(beforeSeek.position.seconds - 5.25) < 1e-6)
    #expect(harness.states.last?.status == .paused)
  }

  @Test func onTrackAndOnEndedFireWhenTheirEventIsConfirmed() async throws {
    let (failure, _, harness) = try await run(
      """
      load a.flac b.flac c.flac
      play
      on track 2 volume 40
      expect track 2
      expect position 0 ± 0.01
      on track 3 seek 1
      on ended load long.flac
      expect state stopped
      wait until track 1
      """)
    #expect(failure == nil, "\(String(describing: failure))")
    // Track 2 was confirmed before the volume changed; the volume changed before track 3 began.
    let states = harness.states
    let firstOfTwo = try #require(states.firstIndex { $0.index == 1 })
    #expect(states[firstOfTwo].volume == 100)
    let firstOfThree = try #require(states.firstIndex { $0.index == 2 })
    #expect(states[firstOfTwo..<firstOfThree].contains { $0.volume == 40 })
  }

  @Test func waitUntilPositionWaitsOnTheAudioClock() async throws {
    let (failure, notes, _) = try await run(
      """
      load long.flac
      play
      wait until position >= 12.5
      expect position 12.5 ± 0
      """)
    #expect(failure == nil, "\(String(describing: failure))")
    #expect(notes == ["t.splay:3: wait until position >= 12.5: confirmed 12.5 s, 0.0 ms late"])
  }

  @Test(arguments: [
    ("load long.flac\nplay\nwait 1\npause\nat 5 next", 5, "at 5: confirmed paused at 1 s, short of 5 s"),
    ("load a.flac\nplay\nat 40 pause", 3, "at 40: the track is 3 s long"),
    ("load a.flac\nrepeat all\nplay\non ended stop", 4, "on ended: the queue repeats (repeat all): it never ends"),
    ("load a.flac b.flac\nplay\non track 3 stop", 3, "on track 3: the queue has 2 tracks"),
    ("load a.flac b.flac\nrepeat one\nplay\nwait until track 2", 4, "wait until track 2: the track repeats"),
    ("at 1 pause", 1, "at 1: no track is open (confirmed idle)"),
    ("load a.flac\nplay\non track 2 pause", 3, "on track 2: the queue has 1 track"),
    ("load a.flac\non ended stop", 2, "on ended: playback stopped short of it: confirmed stopped, track 1"),
    ("load a.flac\nplay\non ended pause", 3, "on ended: pause failed: invalid-state"),
    ("load a.flac\nwait until position >= 1", 2, "wait until position >= 1: confirmed stopped at 0 s, short of 1 s"),
  ])
  func aPointPlaybackCannotReachFailsAtOnceSayingWhy(text: String, line: Int, message: String) async throws {
    let (failure, _, _) = try await run(text)
    let failed = try #require(failure)
    #expect(failed.line == line)
    #expect(failed.message.hasPrefix(message), "\(failed.message)")
  }
}

/// `expect-failure`: a script that fails as declared passes, saying so; one that passes fails at the declaration.
@Suite struct KnownFailureTests {
  private func run(_ text: String) async throws -> (failure: ScriptRunner.Failure?, notes: [String]) {
    let harness = Harness()
    let notes = Locked<[String]>([])
    let runner = ScriptRunner(
      controller: harness.controller, timeline: harness.timeline,
      onNote: { note in notes.withLock { $0.append(note) } })
    return (await runner.run(try ScriptParser.parse(text, name: "k.splay")), notes.withLock { $0 })
  }

  @Test func aKnownFailurePassesWhileItHappens() async throws {
    let (failure, notes) = try await run(
      "expect-failure \"confirmed playing\"\nload a.flac\nplay\nexpect state paused\n")
    #expect(failure == nil)
    #expect(
      notes == [
        "k.splay:4: expected state paused, confirmed playing: the known failure (expect-failure, line 1)"
      ])
  }

  @Test func aKnownFailureThatStoppedHappeningFailsAtItsLine() async throws {
    let (failure, _) = try await run("load a.flac\nexpect-failure\nplay\nexpect state playing\n")
    #expect(failure?.line == 2)
    #expect(failure?.message == "the known failure did not happen: the script passes, remove expect-failure")
  }

  @Test func anotherFailureThanTheKnownOneStillFails() async throws {
    let (failure, _) = try await run("expect-failure \"timeout\"\nload a.flac\nexpect state paused\n")
    #expect(failure?.line == 3)
  }
}
