import PlayerCore

/// Opens files through another factory and scales each by the gain its ReplayGain tags and the policy give
/// (``GainedDecoder``); with the policy off, the other factory's decoders as they are.
public struct ReplayGainDecoderFactory: AudioDecoderFactory {
  private let opener: any AudioDecoderFactory
  /// What gain a file takes.
  public let policy: ReplayGainPolicy

  /// Opens files with `opener` and applies `policy`.
  public init(opening opener: any AudioDecoderFactory, policy: ReplayGainPolicy) {
    self.opener = opener
    self.policy = policy
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
    return GainedDecoder(decoder, gain: gain)
  }
}
