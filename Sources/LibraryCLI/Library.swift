import PlayerCore
import PlayerDecoding
import PlayerIndex
import PlayerLibrary
import SplayConsole

#if canImport(Glibc)
  import Glibc
#endif

/// The index and the roots for this user, opened once per command.
struct Library {
  let locations: LibraryLocations
  let roots: LibraryRoots

  init() throws {
    guard let locations = LibraryLocations.ofThisProcess() else {
      throw LibraryFailure(message: "no place for the library: neither HOME nor XDG_CACHE_HOME is set", status: .failed)
    }
    self.locations = locations
    roots = LibraryRoots(path: locations.roots)
  }

  /// The index; when it had to be made again, says so, and scans the roots when `refill` (a search needs them,
  /// and opens it for reading only).
  func index(refill: Bool) throws -> LibraryIndex {
    let (index, rebuilt) =
      refill ? try LibraryIndex.openForSearch(at: locations.index) : try LibraryIndex.open(at: locations.index)
    if let rebuilt {
      Console.error("\(locations.index): the library index was damaged (\(rebuilt)); made again")
      if refill { _ = try scan(index) }
    }
    return index
  }

  /// Scans the roots into `index`, with a progress line on a terminal and a summary after; returns whether
  /// every file could be read.
  func scan(_ index: LibraryIndex) throws -> Bool {
    let roots = try roots.read()
    let start = Self.now()
    let showsProgress = Console.stderrIsTerminal
    let scanner = LibraryScanner(index: index, readTags: Self.readTags)
    let report = try scanner.scan(roots) { progress in
      if showsProgress { Console.status("scanning: \(progress.done) of \(progress.total) tracks") }
    }
    if showsProgress { Console.status(nil) }
    for line in report.skipped + report.failures { Console.error(line) }
    let seconds = Double(Self.now() - start) / 1e9
    Console.error(
      "library: \(report.found) tracks under \(roots.count) \(roots.count == 1 ? "root" : "roots"): "
        + "\(report.read) read, \(report.removed) removed, \(report.failures.count) unreadable "
        + "(\(String(format: seconds))s)")
    return report.failures.isEmpty && report.skipped.isEmpty
  }

  /// The tags of the track at `path`, read by the decoders that play it, and what `splay info` prints of it.
  static let readTags: LibraryScanner.TagReader = { path in
    do {
      let info = try scanDecoders.open(path).info
      return .success(TrackReading(facts: TrackFacts(info: info, gains: ReplayGainTags.read(atPath: path))))
    } catch {
      return .failure(.track((error as? PlayerError)?.message ?? "\(path): \(error)"))
    }
  }

  /// The paths `splay` named on stdin, NUL-separated (for `info` and `tags`).
  static func pathsOnStandardInput() throws -> [String] {
    do {
      return try FileContents.readStandardInput().split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    } catch {
      throw LibraryFailure(message: "standard input: \(error.reason)", status: .fileError)
    }
  }

  /// This user's index when there is one made by this version (none is made or changed), and `paths` as it
  /// names them: absolute, as the scan walked its roots.
  static func readyIndex(naming paths: [String]) -> (index: LibraryIndex, names: [String])? {
    guard let library = try? Library(), let index = LibraryIndex.openIfReady(at: library.locations.index) else {
      return nil
    }
    let here = AddCommand.workingDirectory()
    return (index, paths.map { LibraryRoots.normalize($0, workingDirectory: here) })
  }

  /// What opens the files and streams splay plays, as `splay` opens them.
  static func decoders(streamTimeout: Double) -> any AudioDecoderFactory {
    CueTrackDecoderFactory(opening: StandardDecoderFactory(streamTimeout: streamTimeout))
  }

  private static let scanDecoders = decoders(streamTimeout: 3)

  static func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }
}

extension String {
  /// `seconds` with one decimal.
  init(format seconds: Double) {
    let tenths = Int((seconds * 10).rounded())
    self = "\(tenths / 10).\(tenths % 10)"
  }
}
