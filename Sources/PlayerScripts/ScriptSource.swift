import PlayerCore

/// Where the scripts that `include FILE` lines name are read from: files beside the including script for
/// `splay run`, a table in tests.
public struct ScriptSource: Sendable {
  /// An included script as read.
  public struct Included: Sendable, Equatable {
    /// Its name in messages (`common.splay:3: …`).
    public var name: String
    /// Its folder: the paths it names (`load`, `include`) are taken from here.
    public var directory: String
    /// Its text.
    public var text: String

    /// An included script named `name`, in `directory`, reading `text`.
    public init(name: String, directory: String, text: String) {
      self.name = name
      self.directory = directory
      self.text = text
    }
  }

  /// How deep includes may nest.
  public static let maximumDepth = 16

  private let read: @Sendable (_ path: String, _ directory: String) -> Result<Included, ScriptSourceFailure>

  /// A source that reads `path`, named by a script in `directory`, with `read`; a failure's text says why.
  public init(read: @escaping @Sendable (_ path: String, _ directory: String) -> Result<Included, ScriptSourceFailure>)
  {
    self.read = read
  }

  /// Files: FILE is taken from the including script's folder unless it is absolute, and named as so joined
  /// (`scripts/common.splay`).
  public static let files = ScriptSource { path, directory in
    var joined = path.hasPrefix("/") || directory.isEmpty ? path : directory + "/" + path
    while joined.hasPrefix("./") { joined.removeFirst(2) }
    do throws(FileContents.ReadError) {
      let bytes = try FileContents.read(path: joined, limit: 16 << 20)
      return .success(
        Included(
          name: joined, directory: FileContents.directory(of: joined), text: String(decoding: bytes, as: UTF8.self)))
    } catch {
      return .failure(ScriptSourceFailure(error.reason))
    }
  }

  /// The script `path` names from a script in `directory`.
  func include(_ path: String, from directory: String) -> Result<Included, ScriptSourceFailure> {
    read(path, directory)
  }
}

/// Why an included script could not be read, in a few words (`no such file`).
public struct ScriptSourceFailure: Error, Equatable, Sendable {
  /// The reason.
  public var reason: String

  /// A failure for `reason`.
  public init(_ reason: String) {
    self.reason = reason
  }
}
