import Glibc

/// The visible entries of a folder, as `readdir` gives them: hidden ones (and `.`, `..`) are left out, as file
/// managers and mpv do.
enum DirectoryEntries {
  /// One entry: its name and `d_type` (`DT_UNKNOWN` on file systems that do not fill it).
  struct Entry {
    var name: String
    var type: UInt8

    /// Whether the entry is a regular file: from `d_type` when the file system says, otherwise by `stat`.
    func isFile(in folder: String) -> Bool {
      switch Int32(type) {
      case Int32(DT_REG): true
      case Int32(DT_DIR): false
      default: FileKind.of(folder + "/" + name) == .file
      }
    }
  }

  /// The entries of the folder at `path`, in no particular order; nil with the `errno` set when it cannot be
  /// read.
  static func list(_ path: String) -> [Entry]? {
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
