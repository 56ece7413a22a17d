import Glibc

/// The ReplayGain a track plays at: decibels applied to its samples before the output (apart from the user's
/// volume, which stays the server's), and the tag they came from.
public struct AppliedGain: Equatable, Hashable, Sendable {
  /// What a gain came from.
  public enum Source: String, Sendable, CaseIterable {
    /// The track's own gain tag.
    case track
    /// The album's gain tag.
    case album
    /// No gain tag: the gain set for untagged files.
    case none
  }

  /// Decibels; negative makes the track quieter, 0 leaves it as it is.
  public var decibels: Double
  /// Where ``decibels`` came from.
  public var source: Source

  /// A gain of `decibels` from `source`.
  public init(decibels: Double, source: Source) {
    self.decibels = decibels
    self.source = source
  }

  /// The factor a sample is multiplied by.
  public var factor: Float { Float(pow(10, decibels / 20)) }
}
