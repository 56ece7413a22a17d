import Foundation
import PlayerIndex
import Synchronization

/// A folder of fake audio files (a FLAC header and nothing else) with the tags a fake reader gives each,
/// and an index beside them; removed when the test ends.
final class LibraryFolder: @unchecked Sendable {
  let path: String
  let music: String
  private let tags = Mutex<[String: TrackTags]>([:])
  /// How many times tags were read.
  var reads: Int { readCount.withLock { $0 } }
  private let readCount = Mutex(0)

  init() throws {
    path =
      FileManager.default.temporaryDirectory.path + "/splay-library-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    music = path + "/music"
    try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  var indexPath: String { path + "/cache/library.sqlite" }

  /// Writes a file that looks like FLAC at `name` (under `music`), read with `tags`.
  @discardableResult
  func add(_ name: String, _ tags: TrackTags) throws -> String {
    let file = music + "/" + name
    try FileManager.default.createDirectory(
      atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data("fLaC".utf8 + [UInt8](repeating: 0, count: 60)).write(to: URL(fileURLWithPath: file))
    self.tags.withLock { $0[file] = tags }
    return file
  }

  /// Gives `tags` for the track at `path` (a cue track's, which is no file of its own).
  func tag(_ path: String, _ tags: TrackTags) {
    self.tags.withLock { $0[path] = tags }
  }

  /// Changes the tags the reader gives for `file` and its modification time.
  func retag(_ file: String, _ tags: TrackTags) throws {
    self.tags.withLock { $0[file] = tags }
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: file)
  }

  /// The fake reader: a file it has no tags for cannot be read.
  var reader: LibraryScanner.TagReader {
    { [self] path in
      readCount.withLock { $0 += 1 }
      guard let tags = tags.withLock({ $0[path] }) else { return .failure(.track("\(path): not audio")) }
      return .success(TrackReading(tags: tags))
    }
  }

  func index() throws -> LibraryIndex { try LibraryIndex.open(at: indexPath).index }

  @discardableResult
  func scan(_ roots: [String]? = nil, into index: LibraryIndex? = nil) throws -> LibraryScanner.Report {
    try LibraryScanner(index: index ?? self.index(), readTags: reader).scan(roots ?? [music])
  }

  /// The names (below `music`) of the tracks `text` finds.
  func search(_ text: String, in index: LibraryIndex? = nil) throws -> [String] {
    try (index ?? self.index()).search(LibraryQuery(text)).map { String($0.path.dropFirst(music.count + 1)) }
  }
}
