import Glibc

/// The visible entries of a folder, as `readdir` gives them: hidden ones (and `.`, `..`) are left out, as file
/// managers and mpv do.
package enum DirectoryEntries {
  /// One entry: its name and `d_type` (`DT_UNKNOWN` on file systems that do not fill it).
  package struct Entry {
    /// The entry's name.
    package var name: String
    /// Its `d_type`.
    package var type: UInt8

    /// What the entry is, in the folder at `folder`: from `d_type` when the file system says (a `stat` saved
    /// per file), otherwise, for links and unknowns, by `stat`.
    package func kind(in folder: String) -> FileKind {
      switch Int32(type) {
      case Int32(DT_REG): .file
      case Int32(DT_DIR): .directory
      default: FileKind.of(path(in: folder))
      }
    }

    /// Whether the entry is a regular file, or a link to one.
    package func isFile(in folder: String) -> Bool { kind(in: folder) == .file }

    /// The entry's path in the folder at `folder`.
    package func path(in folder: String) -> String {
      folder.hasSuffix("/") ? String(joining: folder, name) : String(joining: folder, "/", name)
    }
  }

  /// The entries of the folder at `path`, in no particular order; nil with the `errno` set when it cannot be
  /// read.
  package static func list(_ path: String) -> [Entry]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var entries: [Entry] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      guard !name.hasPrefix(".") else { continue }
      entries.append(Entry(name: name, type: entry.pointee.d_type))
    }
    return entries
  }
}

extension String {
  /// `parts` one after the other, in a string of exactly their size: `a + b` may double `a`'s capacity, and
  /// for the 200,000 paths of a big folder tree that was 9 MB of slack.
  package init(joining parts: String...) {
    self.init()
    reserveCapacity(parts.reduce(0) { $0 + $1.utf8.count })
    for part in parts { append(part) }
  }
}
