/// A value that splay puts on the D-Bus for MPRIS, with its D-Bus type: a property, a metadata entry, or a
/// signal's argument.
///
/// The mapping from ``PlayerState`` produces these without touching the bus, so that it can be tested on its own;
/// the bus side only writes them out.
public enum MPRISValue: Equatable, Sendable {
  /// `s`. Build it with ``text(_:)``, which makes the string acceptable to a bus.
  case string(String)
  /// `o`, an object path such as `/org/splay/track/3`.
  case objectPath(String)
  /// `b`.
  case boolean(Bool)
  /// `d`.
  case double(Double)
  /// `x`, as MPRIS uses it for microseconds.
  case int64(Int64)
  /// `i`.
  case int32(Int32)
  /// `as`.
  case strings([String])
  /// `a{sv}`, as in `Metadata`. Written in the order of its sorted keys.
  case dictionary([String: MPRISValue])

  /// The D-Bus type signature: `s`, `o`, `b`, `d`, `x`, `i`, `as` or `a{sv}`.
  public var signature: String {
    switch self {
    case .string: "s"
    case .objectPath: "o"
    case .boolean: "b"
    case .double: "d"
    case .int64: "x"
    case .int32: "i"
    case .strings: "as"
    case .dictionary: "a{sv}"
    }
  }

  /// A `s` value holding `text` as a bus accepts it (see ``busText(_:)``).
  public static func text(_ text: String) -> MPRISValue { .string(busText(text)) }

  /// `text` with every NUL character replaced by U+FFFD.
  ///
  /// A D-Bus string is valid UTF-8 without NUL, and a bus daemon closes the connection of a client that sends
  /// anything else. A Swift `String` is valid UTF-8 already (the decoders' tags were repaired when they were
  /// read), but it may hold NUL, which a tag can carry and which C would cut the string at: replaced rather
  /// than dropped, so that what follows it is kept and the damage stays visible.
  public static func busText(_ text: String) -> String {
    guard text.utf8.contains(0) else { return text }
    return String(text.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : Character($0) })
  }
}
