/// How splay names one track of a cue sheet in a queue: the sheet's path followed by `/trackNN`, as MPD names
/// them (`live.cue/track03`, or `live.flac/track03` for a sheet inside a FLAC file). No file can have such a
/// path, since the sheet is a file and not a folder, so a queue, a playlist and the control socket carry cue
/// tracks as the paths they already carry.
public struct CueTrackPath: Equatable, Hashable, Sendable {
  /// The cue sheet's path, or the path of the FLAC file that holds one.
  public var sheet: String
  /// The number after `TRACK` in the sheet.
  public var number: Int

  /// Names track `number` of the sheet at `sheet`.
  public init(sheet: String, number: Int) {
    self.sheet = sheet
    self.number = number
  }

  /// Reads `path` as a cue track's name: a path, then `/track` and a number of up to three digits. Nil for
  /// any other path. Whether the sheet is there is for the caller to see: `Music/track01` reads as a name too.
  public init?(_ path: String) {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return nil }
    let name = path[path.index(after: slash)...]
    let digits = name.dropFirst("track".count)
    guard name.lowercased().hasPrefix("track"), (1...3).contains(digits.count), digits.allSatisfy(\.isASCII),
      let number = Int(digits)
    else { return nil }
    self.init(sheet: String(path[..<slash]), number: number)
  }

  /// The path as a queue holds it: `SHEET/trackNN`, the number in two digits at least.
  public var path: String {
    sheet + (number < 10 ? "/track0" : "/track") + String(number)
  }
}
