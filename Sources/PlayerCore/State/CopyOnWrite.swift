/// A value kept behind one reference and copied only when it is written while shared: what lets the states
/// and tracks that the player hands to every future and observer be copied for the price of a reference
/// count instead of a copy of every field.
struct CopyOnWrite<Value: Hashable & Sendable>: Hashable, Sendable {
  /// Never written while another copy can see it: writes go through `value`'s `_modify`, which replaces a
  /// shared box first. That rule is what makes the unchecked conformance sound.
  private final class Box: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
  }

  private var box: Box

  init(_ value: Value) { box = Box(value) }

  /// The value; writing it copies the box first when another copy shares it.
  var value: Value {
    get { box.value }
    _modify {
      if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
      yield &box.value
    }
  }

  /// True when both copies share one box, so their values are equal without comparing them.
  func isIdentical(to other: CopyOnWrite) -> Bool { box === other.box }

  static func == (lhs: CopyOnWrite, rhs: CopyOnWrite) -> Bool {
    lhs.box === rhs.box || lhs.box.value == rhs.box.value
  }

  func hash(into hasher: inout Hasher) { hasher.combine(box.value) }
}
