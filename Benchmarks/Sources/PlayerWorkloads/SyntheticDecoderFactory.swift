import PlayerCore

/// Opens every path as a ``SyntheticDecoder``, so no file is touched while commands are measured.
public struct SyntheticDecoderFactory: AudioDecoderFactory {
  /// Creates the factory.
  public init() {}

  /// Returns a 30 s silent track named `path`.
  public func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
    SyntheticDecoder(path: path)
  }
}
