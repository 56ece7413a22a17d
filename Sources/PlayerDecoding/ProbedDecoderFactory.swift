import Futures
import PlayerCore

/// Opens files for a controller, handing out once the decoder that a caller already opened while checking the
/// files (`splay play` does, to report unplayable files before it starts), so that the first track is not
/// opened twice: a FLAC file's headers take about half a millisecond to read, and the stream to the server
/// cannot be created before the decoder is there.
///
/// Only one decoder is kept (the first playable file's): keeping every checked file open would hold one
/// descriptor per file of a long command line.
public final class ProbedDecoderFactory: AudioDecoderFactory {
  private let opener: any AudioDecoderFactory
  private let kept = Lock<Kept>(Kept())

  private struct Kept {
    var entry: (path: String, decoder: any AudioDecoder)?
    /// The first `open` came: nothing is kept from then on.
    var closed = false
  }

  /// Creates a factory that opens files with `opener`.
  public init(opener: any AudioDecoderFactory = StandardDecoderFactory()) {
    self.opener = opener
  }

  /// Opens `path`; when the very first `open` asks for the checked path, returns the decoder ``check(_:)``
  /// kept. The kept decoder is for the first track only and is let go at the first `open` whatever it asks
  /// for: an output may have read it meanwhile (``PulseOutput/prepare(_:playingWhen:)``, for the track a command line
  /// most likely plays first), and handed out later, for a track that comes after another (`--shuffle`), it
  /// would start that track where the reading stopped.
  public func open(_ path: String) throws(PlayerError) -> any AudioDecoder {
    let reused = kept.withLock { kept -> (any AudioDecoder)? in
      defer { kept = Kept(entry: nil, closed: true) }
      guard let entry = kept.entry, entry.path == path else { return nil }
      return entry.decoder
    }
    if let reused { return reused }
    return try opener.open(path)
  }

  /// Opens `path` to check that it can be played; the first decoder opened this way is kept for the
  /// controller's first `open` of the same path, the others are closed at once. A path whose decoder is
  /// kept was checked already and is not opened again.
  public func check(_ path: String) throws(PlayerError) {
    if kept.withLock({ $0.entry?.path == path }) { return }
    keep(try opener.open(path), for: path)
  }

  /// Keeps `decoder`, opened and checked elsewhere for `path`, as if ``check(_:)`` had opened it, and returns
  /// whether it did: not when another decoder is kept already or the first `open` has come. `splay play`
  /// checks its first file beside the stream it prepares for it, and lets that stream play only when its
  /// decoder is the one the controller will open: otherwise the controller opens another and the track's
  /// opening would be heard twice.
  @discardableResult
  public func keep(_ decoder: any AudioDecoder, for path: String) -> Bool {
    kept.withLock { kept in
      guard kept.entry == nil, !kept.closed else { return false }
      kept.entry = (path, decoder)
      return true
    }
  }

  /// The decoder kept for `path`, left in place for the controller's `open` (an output may prepare a stream
  /// for it meanwhile: ``PulseOutput/prepare(_:playingWhen:)``); nil when another path's decoder, or none, is kept.
  public func keptDecoder(for path: String) -> (any AudioDecoder)? {
    kept.withLock { $0.entry?.path == path ? $0.entry?.decoder : nil }
  }
}
