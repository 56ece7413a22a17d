import PlayerCore

/// A seek or a stop after the server flushed: the decoder's move and the server's anchor run side by side, and
/// the later of the two decides how the command ends. The decoder may land elsewhere than the target (a file
/// that cannot seek there goes back where the audio was), and nothing confirms a frame the audio does not start
/// at. Touched only under the mainloop lock (a class: both halves' callbacks hold it).
final class Reposition: @unchecked Sendable {
  /// How the command ends once both halves are in.
  struct Decision: Equatable {
    /// Where the position now starts, in seconds, when the decoder landed elsewhere than the target.
    var movedTo: Double?
    /// What the output does next.
    var then: Then
  }

  /// What the output does once the ring starts where the decoder landed and the anchor is known.
  enum Then: Equatable {
    /// Confirms a corked stream at the anchor.
    case confirmCorked
    /// Fails the command; the stream stays corked.
    case fail(PlayerError)
    /// Uncorks and confirms the running stream, or fails with `failing` once it runs again (the audio is back
    /// where it was, playing as it was).
    case start(failing: PlayerError?)
  }

  /// The frame asked for.
  let target: Int64
  /// Whether the stream plays once repositioned, when the decoder got there.
  let resume: Bool
  /// Whether it played before: what it goes back to when the decoder did not get there.
  let wasRunning: Bool
  /// Frames per second of the track.
  let sampleRate: Int
  private var landing: SeekLanding?
  private var anchored = false

  /// A reposition to `target`.
  init(target: Int64, resume: Bool, wasRunning: Bool, sampleRate: Int) {
    self.target = target
    self.resume = resume
    self.wasRunning = wasRunning
    self.sampleRate = sampleRate
  }

  /// The decoder landed; the decision once the anchor is known too.
  func landed(_ landing: SeekLanding) -> Decision? {
    self.landing = landing
    return decision()
  }

  /// The server's anchor after the flush is known; the decision once the decoder landed too.
  func anchorKnown() -> Decision? {
    anchored = true
    return decision()
  }

  private func decision() -> Decision? {
    guard let landing, anchored else { return nil }
    let movedTo = landing.frame.flatMap { $0 == target ? nil : Double($0) / Double(sampleRate) }
    guard let failure = landing.error else {
      return Decision(movedTo: movedTo, then: resume ? .start(failing: nil) : .confirmCorked)
    }
    return Decision(movedTo: movedTo, then: wasRunning ? .start(failing: failure) : .fail(failure))
  }
}
