import Glibc
import PlayerCore

/// Which ReplayGain gain a track plays at (the config's `replaygain`).
public enum ReplayGainMode: String, CaseIterable, Sendable {
  /// Every file at its mastered loudness.
  case off
  /// Each track at its own gain.
  case track
  /// Each track at its album's gain, so that an album keeps its own dynamics.
  case album
  /// The album gain while the queue plays in order, the track gain when shuffled.
  case auto
}

/// The gain a file plays at, from its tags: the mode's gain (the other one when the file lacks it) plus the
/// preamp, lowered so that the tagged peak does not clip; `untagged` for a file with neither. Pure: the caller
/// reads the tags and applies the result.
public struct ReplayGainPolicy: Equatable, Sendable {
  /// Which gain a track takes.
  public var mode: ReplayGainMode
  /// Decibels added to a tagged gain.
  public var preamp: Double
  /// Decibels for a file without ReplayGain tags.
  public var untagged: Double
  /// Whether a gain is lowered so that the tagged peak stays at or below full scale.
  public var preventsClipping: Bool

  /// A policy; by default ReplayGain is off.
  public init(mode: ReplayGainMode = .off, preamp: Double = 0, untagged: Double = 0, preventsClipping: Bool = true) {
    self.mode = mode
    self.preamp = preamp
    self.untagged = untagged
    self.preventsClipping = preventsClipping
  }

  /// The gain for a file with `tags`, `shuffled` deciding `auto`; nil when the mode is off.
  public func gain(for tags: ReplayGainTags, shuffled: Bool) -> AppliedGain? {
    let wantsAlbum: Bool
    switch mode {
    case .off: return nil
    case .track: wantsAlbum = false
    case .album: wantsAlbum = true
    case .auto: wantsAlbum = !shuffled
    }
    let album = tags.albumGain.map { ($0, tags.albumPeak ?? tags.trackPeak, AppliedGain.Source.album) }
    let track = tags.trackGain.map { ($0, tags.trackPeak ?? tags.albumPeak, AppliedGain.Source.track) }
    guard let (gain, peak, source) = wantsAlbum ? album ?? track : track ?? album else {
      return AppliedGain(decibels: untagged, source: .none)
    }
    var decibels = gain + preamp
    if preventsClipping, let peak, peak > 0 {
      decibels = min(decibels, -20 * log10(peak))
    }
    return AppliedGain(decibels: decibels, source: source)
  }
}
