import Dispatch
import FoundationEssentials
import Glibc

/// A key the live view understands.
enum Key: Equatable {
  case character(Character)
  case left, right, up, down
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
      }
    }
  }

  /// Decodes the first key of `bytes`: nil when more bytes are needed; a nil key for bytes to drop.
  static func decode(_ bytes: [UInt8]) -> (Key?, Int)? {
    guard let first = bytes.first else { return nil }
    if first == 0x1B {
      guard bytes.count >= 2 else { return nil }
      guard bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") else { return (nil, 1) }
      guard bytes.count >= 3 else { return nil }
      switch bytes[2] {
      case UInt8(ascii: "A"): return (.up, 3)
      case UInt8(ascii: "B"): return (.down, 3)
      case UInt8(ascii: "C"): return (.right, 3)
      case UInt8(ascii: "D"): return (.left, 3)
      default: return (nil, 3)
      }
    }
    if first == 0x03 { return (.interrupt, 1) }
    if first == 0x1A { return (.suspend, 1) }
    if first < 0x80 { return (.character(Character(Unicode.Scalar(first))), 1) }
    return (nil, 1)
  }
}
