import PlayerCore

/// Opens files through another factory and scales each by the gain its ReplayGain tags and the policy give;
/// with the policy off, the other factory's decoders as they are.
public struct ReplayGainDecoderFactory: AudioDecoderFactory {
  /// Wraps a decoder in one whose samples are scaled by a gain (PlayerDecoding's `GainedDecoder`).
  public typealias Applying = @Sendable (any AudioDecoder, AppliedGain) -> any AudioDecoder

  private let opener: any AudioDecoderFactory
  private let applying: Applying
  /// What gain a file takes.
  public let policy: ReplayGainPolicy

  /// Opens files with `opener` and applies `policy` through `applying`.
  public init(opening opener: any AudioDecoderFactory, policy: ReplayGainPolicy, applying: @escaping Applying) {
    self.opener = opener
    self.policy = policy
    self.applying = applying
  }

  /// Opens `path` as a queue played in order would: with the album gain in `auto` mode.
  public func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
    try open(path, order: .inOrder)
  }

  /// Opens `path` and applies its gain; `order` decides `auto` mode.
  public func open(_ path: String, order: PlayOrder) throws(PlayerError) -> any AudioDecoder {
    let decoder = try opener.open(path, order: order)
    let tags = policy.mode == .off ? ReplayGainTags() : ReplayGainTags.read(atPath: path)
    guard let gain = policy.gain(for: tags, shuffled: order == .shuffled) else { return decoder }
    return applying(decoder, gain)
  }
}
