import Dispatch
import FoundationEssentials
import Glibc

/// A key the live view understands.
enum Key: Equatable {
  case character(Character)
  case left, right, up, down
  case enter, backspace, tab
  /// Esc, read once the key after it has come (alone, it may begin an arrow's sequence).
  case escape
  case interrupt
  case suspend
}

/// Reads keys from the terminal (``TerminalInput``) on a thread of its own (a blocking read belongs nowhere else), decoding the arrow
/// keys' escape sequences.
final class KeyReader: Sendable {
  private let onKey: @Sendable (Key) -> Void

  init(onKey: @escaping @Sendable (Key) -> Void) {
    self.onKey = onKey
  }

  /// Starts reading until the input ends.
  func start() {
    DetachedThread.start { [onKey] in
      var pending: [UInt8] = []
      var byte: UInt8 = 0
      while read(TerminalInput.descriptor, &byte, 1) == 1 {
        pending.append(byte)
        while let (key, used) = KeyReader.decode(pending) {
          pending.removeFirst(used)
          if let key { onKey(key) }
        }
        // Esc alone: an arrow's sequence follows at once, a person's next key does not.
        if pending == [0x1B], !KeyReader.moreWithin(milliseconds: 30) {
          pending.removeAll()
          onKey(.escape)
        }
      }
    }
  }

  /// Decodes the first key of `bytes`: nil when more bytes are needed; a nil key for bytes to drop.
  static func decode(_ bytes: [UInt8]) -> (Key?, Int)? {
    guard let first = bytes.first else { return nil }
    if first == 0x1B {
      guard bytes.count >= 2 else { return nil }
      guard bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") else { return (.escape, 1) }
      guard bytes.count >= 3 else { return nil }
      switch bytes[2] {
      case UInt8(ascii: "A"): return (.up, 3)
      case UInt8(ascii: "B"): return (.down, 3)
      case UInt8(ascii: "C"): return (.right, 3)
      case UInt8(ascii: "D"): return (.left, 3)
      default: return (nil, 3)
      }
    }
    switch first {
    case 0x03: return (.interrupt, 1)
    case 0x1A: return (.suspend, 1)
    case 0x0D, 0x0A: return (.enter, 1)
    case 0x7F, 0x08: return (.backspace, 1)
    case 0x09: return (.tab, 1)
    case ..<0x20: return (nil, 1)
    case ..<0x80: return (.character(Character(Unicode.Scalar(first))), 1)
    default: return utf8Character(bytes)
    }
  }

  /// Whether another byte arrives from the terminal within `milliseconds`.
  static func moreWithin(milliseconds: Int32) -> Bool {
    var descriptor = pollfd(fd: TerminalInput.descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, milliseconds) > 0
  }

  /// A character of several UTF-8 bytes (typed in a query: `ö`, `東`): nil while bytes are missing; a byte that
  /// cannot begin or continue one is dropped.
  static func utf8Character(_ bytes: [UInt8]) -> (Key?, Int)? {
    let length =
      switch bytes[0] {
      case 0xC2...0xDF: 2
      case 0xE0...0xEF: 3
      case 0xF0...0xF4: 4
      default: 0
      }
    guard length > 0, bytes.dropFirst().prefix(length - 1).allSatisfy({ (0x80...0xBF).contains($0) }) else {
      return (nil, 1)
    }
    guard bytes.count >= length else { return nil }
    guard let text = String(validating: bytes[0..<length], as: UTF8.self), let character = text.first else {
      return (nil, 1)
    }
    return (.character(character), length)
  }
}
