/// Writes an `Encodable` value as one line of compact JSON with sorted keys, the form the control socket
/// sends (docs/protocol.md).
///
/// Foundation's `JSONEncoder` writes the same text, but every reply paid for its generality: its generic
/// boxing, the checks for dates, data and URLs, and a dictionary per object cost about 80 µs per reply on
/// this project's machine once the caches had gone cold between two commands, a sixth of a socket round
/// trip. This encoder keeps only what the protocol's types use: keyed, unkeyed and single-value containers
/// of strings, integers, finite floating-point numbers, booleans and null.
///
/// ```swift
/// let line = try JSONLineEncoder.line(for: state)   // {"index":0,"position":1.5,...}
/// ```
public enum JSONLineEncoder {
  /// The JSON text of `value`, keys sorted at every level, without a newline.
  ///
  /// Throws `EncodingError.invalidValue` for a NaN or an infinity, which JSON cannot express.
  public static func line(for value: some Encodable) throws -> String {
    let root = JSONNode()
    try value.encode(to: NodeEncoder(node: root, codingPath: []))
    var text = ""
    text.reserveCapacity(256)
    root.write(to: &text)
    return text
  }
}

/// One value of the tree being encoded. A class, because containers handed out by an encoder keep writing
/// into it after they were returned.
private final class JSONNode {
  enum Kind {
    /// Nothing was encoded (written as `null`, as Foundation does for an empty value).
    case empty
    /// Text that is already JSON: a number, `true`, `false`, `null` or a quoted string.
    case scalar(String)
    case array([JSONNode])
    case object([String: JSONNode])
  }

  var kind = Kind.empty

  /// Makes this node an object (keeping its members if it already is one) and returns the member for `key`.
  func member(_ key: String) -> JSONNode {
    var members: [String: JSONNode]
    if case .object(let existing) = kind { members = existing } else { members = [:] }
    kind = .empty  // drops the enum's reference, so the dictionary below is mutated in place
    let node = JSONNode()
    members[key] = node
    kind = .object(members)
    return node
  }

  /// Makes this node an object with no members unless it already is one.
  func becomeObject() {
    if case .object = kind { return }
    kind = .object([:])
  }

  /// Makes this node an array unless it already is one, and appends a new element.
  func appendElement() -> JSONNode {
    var elements: [JSONNode]
    if case .array(let existing) = kind { elements = existing } else { elements = [] }
    kind = .empty
    let node = JSONNode()
    elements.append(node)
    kind = .array(elements)
    return node
  }

  func becomeArray() {
    if case .array = kind { return }
    kind = .array([])
  }

  var count: Int {
    switch kind {
    case .array(let elements): elements.count
    case .object(let members): members.count
    case .empty, .scalar: 0
    }
  }

  func write(to text: inout String) {
    switch kind {
    case .empty: text += "null"
    case .scalar(let json): text += json
    case .array(let elements):
      text += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { text += "," }
        element.write(to: &text)
      }
      text += "]"
    case .object(let members):
      text += "{"
      // Sorted by their UTF-8 bytes, as JSONEncoder's .sortedKeys does for the protocol's ASCII keys.
      for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
        if index > 0 { text += "," }
        JSONText.appendQuoted(key, to: &text)
        text += ":"
        members[key]!.write(to: &text)
      }
      text += "}"
    }
  }
}

/// The JSON spelling of scalars.
private enum JSONText {
  static func quoted(_ string: String) -> String {
    var text = ""
    text.reserveCapacity(string.utf8.count + 2)
    appendQuoted(string, to: &text)
    return text
  }

  /// Escapes what JSON requires (quote, backslash, control characters) and nothing else: slashes and
  /// non-ASCII characters are written as they are.
  static func appendQuoted(_ string: String, to text: inout String) {
    text += "\""
    var plainStart = string.unicodeScalars.startIndex
    var index = plainStart
    let scalars = string.unicodeScalars
    while index != scalars.endIndex {
      let scalar = scalars[index]
      let escape: String? =
        switch scalar {
        case "\"": "\\\""
        case "\\": "\\\\"
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        case "\u{08}": "\\b"
        case "\u{0C}": "\\f"
        case _ where scalar.value < 0x20: "\\u00" + hexDigits(scalar.value)
        default: nil
        }
      if let escape {
        text.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
        text += escape
        plainStart = scalars.index(after: index)
      }
      index = scalars.index(after: index)
    }
    text.unicodeScalars.append(contentsOf: scalars[plainStart..<scalars.endIndex])
    text += "\""
  }

  private static func hexDigits(_ value: UInt32) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(value >> 4)], digits[Int(value & 0xF)]])
  }

  /// A finite number as JSONEncoder writes it: integral values without a fraction (`3`, not `3.0`).
  static func number(_ value: Double, codingPath: [any CodingKey]) throws -> String {
    guard value.isFinite else {
      throw EncodingError.invalidValue(
        value, EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is not valid JSON"))
    }
    let text = value.description
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
  }
}

private struct NodeEncoder: Encoder {
  let node: JSONNode
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    node.becomeObject()
    return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    node.becomeArray()
    return UnkeyedNodeContainer(node: node, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleNodeContainer(node: node, codingPath: codingPath)
  }
}

/// Encodes one scalar or nested value into a node; shared by the three kinds of container.
private protocol NodeWriting {
  var codingPath: [any CodingKey] { get }
}

extension NodeWriting {
  func write(_ value: some Encodable, into node: JSONNode, path: [any CodingKey]) throws {
    switch value {
    case let string as String: node.kind = .scalar(JSONText.quoted(string))
    case let bool as Bool: node.kind = .scalar(bool ? "true" : "false")
    case let double as Double: node.kind = .scalar(try JSONText.number(double, codingPath: path))
    case let float as Float: node.kind = .scalar(try JSONText.number(Double(float), codingPath: path))
    case let integer as any BinaryInteger: node.kind = .scalar(String(describing: integer))
    default: try value.encode(to: NodeEncoder(node: node, codingPath: path))
    }
  }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, NodeWriting {
  let node: JSONNode
  let codingPath: [any CodingKey]

  mutating func encodeNil(forKey key: Key) throws {
    node.member(key.stringValue).kind = .scalar("null")
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try write(value, into: node.member(key.stringValue), path: codingPath + [key])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let child = node.member(key.stringValue)
    child.becomeObject()
    return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let child = node.member(key.stringValue)
    child.becomeArray()
    return UnkeyedNodeContainer(node: child, codingPath: codingPath + [key])
  }

  mutating func superEncoder() -> any Encoder {
    NodeEncoder(node: node.member("super"), codingPath: codingPath)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
  }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer, NodeWriting {
  let node: JSONNode
  let codingPath: [any CodingKey]
  var count: Int { node.count }

  mutating func encodeNil() throws {
    node.appendElement().kind = .scalar("null")
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    try write(value, into: node.appendElement(), path: codingPath)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
    NestedKey
  > {
    let child = node.appendElement()
    child.becomeObject()
    return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: child, codingPath: codingPath))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let child = node.appendElement()
    child.becomeArray()
    return UnkeyedNodeContainer(node: child, codingPath: codingPath)
  }

  mutating func superEncoder() -> any Encoder {
    NodeEncoder(node: node.appendElement(), codingPath: codingPath)
  }
}

private struct SingleNodeContainer: SingleValueEncodingContainer, NodeWriting {
  let node: JSONNode
  let codingPath: [any CodingKey]

  mutating func encodeNil() throws {
    node.kind = .scalar("null")
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    try write(value, into: node, path: codingPath)
  }
}
