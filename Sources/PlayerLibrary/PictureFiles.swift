import Glibc
import PlayerCore

/// Keeps pictures taken out of audio files as files a desktop can open (`mpris:artUrl` is a URL, not bytes):
/// named by their content, so an album's tracks share one file and a picture is written once, in
/// `$XDG_RUNTIME_DIR/splay/art` (a per-user tmpfs, emptied at logout), else `/tmp/splay-UID/art`.
public enum PictureFiles {
  /// The folder the pictures go to, created private (0700) on first use; nil when it cannot be made, or a
  /// folder there is not this user's alone (someone else made `/tmp/splay-UID` first).
  static func folder() -> String? {
    let base: String
    if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") {
      base = runtime + "/splay"
    } else {
      base = "/tmp/splay-\(getuid())"
    }
    for path in [base, base + "/art"] {
      if mkdir(path, 0o700) != 0, errno != EEXIST { return nil }
      var st = stat()
      guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR, st.st_uid == getuid(), st.st_mode & 0o077 == 0
      else { return nil }
    }
    return base + "/art"
  }

  /// The path of a file holding `picture`, written now unless a file of that content is there; nil when it
  /// cannot be written.
  public static func store(_ picture: EmbeddedPicture) -> String? {
    guard let folder = folder() else { return nil }
    // FNV-1a: a name, not a defence; the size in the name keeps two pictures with one hash apart.
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in picture.bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    let hex = String(hash, radix: 16)
    let path =
      "\(folder)/\(String(repeating: "0", count: 16 - hex.count))\(hex)-\(picture.bytes.count)."
      + picture.fileExtension
    var st = stat()
    if stat(path, &st) == 0, st.st_size == picture.bytes.count { return path }
    // Written aside and renamed, so that a reader never sees half a picture.
    let temporary = "\(path).\(getpid()).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return nil }
    let written = picture.bytes.withUnsafeBytes { raw -> Bool in
      var done = 0
      while done < raw.count {
        let count = write(fd, raw.baseAddress! + done, raw.count - done)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return false }
        done += count
      }
      return true
    }
    close(fd)
    guard written, rename(temporary, path) == 0 else {
      unlink(temporary)
      return nil
    }
    return path
  }
}
