/// Result slots filled from many threads; the last fill gets them all, in order.
@usableFromInline
final class ResultSlots<Element: Sendable>: Sendable {
  @usableFromInline
  struct State {
    @usableFromInline
    var elements: [Element?]
    @usableFromInline
    var remaining: Int

    @inlinable
    init(elements: [Element?], remaining: Int) {
      self.elements = elements
      self.remaining = remaining
    }
  }

  @usableFromInline
  let state: Lock<State>

  @inlinable
  init(count: Int) {
    state = Lock(State(elements: Array(repeating: nil, count: count), remaining: count))
  }

  /// Fills slot `index`; returns every element once the last slot is filled.
  @inlinable
  func fill(_ index: Int, with element: Element) -> [Element]? {
    state.withLock { state in
      state.elements[index] = element
      state.remaining -= 1
      guard state.remaining == 0 else { return nil }
      return state.elements.map { $0! }
    }
  }
}
