#if canImport(Glibc)
  import Glibc
#endif

/// What `stat` says a path is, following symlinks.
package enum FileKind: Equatable {
  /// Nothing there (or no access): `stat`'s errno.
  case missing(errno: Int32)
  /// A folder.
  case directory
  /// A regular file.
  case file
  /// Anything else (a FIFO, a device, a socket).
  case other

  /// What `path` is now.
  package static func of(_ path: String) -> FileKind {
    var st = stat()
    guard stat(path, &st) == 0 else { return .missing(errno: errno) }
    switch st.st_mode & S_IFMT {
    case S_IFDIR: return .directory
    case S_IFREG: return .file
    default: return .other
    }
  }
}
